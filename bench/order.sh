#!/usr/bin/env bash
# Writes bench/hot-symbols.txt: the functions the hooks' everyday paths run,
# in the order they first run, then the named statics they touch. install.sh
# hands it to the linker (`--symbol-ordering-file`), so that they sit
# together at the start of the program's code and of its data. A hook is a
# short process on a machine where a page fault costs a few µs: code spread
# over 7 MB faults page after page, code packed together a few times
# (BENCHMARKS.md, issue 15, third and fourth sessions).
#
# The paths: the pre-push hook (git-vouch's fast path) answering a
# fast-forward, `agent-hook claude` answering a harmless command, the
# pre-commit hook on a one-file change, and the reference-transaction hook
# judging a commit's branch update. Each runs under callgrind and lackey
# in a build with symbols and the same flags as install.sh's.
#
# A name the linker does not find (the code changed since) costs speed,
# never correctness; install.sh counts them and builds without the list
# when it matches fewer than 90% of its names (a stale list, or another
# Rust: the names carry hashes of the compiler's version), and
# `.ci/check-order` fails CI then. Run it again after large changes and
# with each new Rust toolchain. Usage: bench/order.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
host=$(rustc -vV | sed -n 's/^host: //p')
[ "$host" = x86_64-unknown-linux-gnu ] || { echo "order.sh: x86-64 Linux (glibc) only" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "order.sh: needs valgrind (callgrind)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/vouch-order.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Built as install.sh builds, with the symbols kept. They are kept with
# `-C strip=none` in RUSTFLAGS, not by changing the profile's `strip`:
# cargo hashes the profile into each crate's symbol names (`17h...E`), so a
# build with another profile names every function of vouch and of its
# dependencies differently, and the linker would find only the standard
# library's. RUSTFLAGS do not change the names.
RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static -C strip=none" \
  cargo build --release --locked --manifest-path "$here/Cargo.toml" \
  --target "$host" --target-dir "$work/target" >&2
bin="$work/bin"
mkdir -p "$bin"
cp "$work/target/$host/release/git-vouch" "$bin/"

export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig" VOUCH_HEADLESS=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n' > "$GIT_CONFIG_GLOBAL"
git init -q --bare "$work/remote.git"
git clone -q "$work/remote.git" "$work/w" 2>/dev/null
cd "$work/w"
echo a > a.txt && git add a.txt && git commit -q -m a && git push -q origin main
"$bin/git-vouch" install >/dev/null 2>&1
git commit -q --allow-empty -m b
echo "refs/heads/main $(git rev-parse HEAD) refs/heads/main $(git rev-parse HEAD~1)" > "$work/push.in"
printf '{"session_id":"order","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status \\u0026\\u0026 cargo test --workspace"}}' "$work/w" > "$work/agent.json"
printf '%s %s refs/heads/main\n' "$(git rev-parse HEAD~1)" "$(git rev-parse HEAD)" > "$work/tx.in"
echo b >> a.txt && git add a.txt

# each TOOL: runs `TOOL <name> <command...>` for each of the four paths.
each() {
  "$1" push "$bin/git-vouch" hook pre-push --hook-dir .git/hooks -- origin "$work/remote.git" < "$work/push.in"
  "$1" agent "$bin/git-vouch" agent-hook claude < "$work/agent.json"
  "$1" commit "$bin/git-vouch" hook pre-commit --hook-dir .git/hooks -- < /dev/null
  "$1" tx "$bin/git-vouch" hook reference-transaction --hook-dir .git/hooks -- prepared < "$work/tx.in"
}
cg() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" "${@:2}" >/dev/null 2>&1 || true; }
each cg

# Every function named in the profiles (`fn=`, `cfn=`), first seen first.
cat "$work"/{push,agent,commit,tx}.out \
  | sed -n 's/^c\{0,1\}fn=([0-9]*) \([^ ]*\)$/\1/p' \
  | grep -v '^0x' \
  | awk '!seen[$0]++' > "$work/functions"

# The same paths under lackey, which lists every load and store: the named
# statics they touch (the C library's and Rust's, read-only or written),
# first touched first. Packed together, the data a hook writes takes two
# pages instead of nine, each a copy-on-write fault at every start.
# Constants without a name (most string literals) cannot be ordered.
lk() { valgrind --tool=lackey --trace-mem=yes --log-file="$work/$1.mem" "${@:2}" >/dev/null 2>&1 || true; }
each lk
data() { # $1: the program, $2...: its traces; prints the statics touched
  nm -S -n "$1" | python3 -c '
import bisect, re, sys
statics = sorted(
    (int(f[0], 16), int(f[1], 16), f[3])
    for f in (line.split() for line in sys.stdin)
    if len(f) == 4 and f[2] in "dDbBrRvV" and int(f[1], 16) > 0
)
starts = [s[0] for s in statics]
seen = set()
for trace in sys.argv[1:]:
    for line in open(trace):
        m = re.match(r"\s*[LSM]\s+([0-9a-f]+),", line)
        if not m:
            continue
        a = int(m.group(1), 16)
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and a < statics[i][0] + statics[i][1] and statics[i][2] not in seen:
            seen.add(statics[i][2])
            print(statics[i][2])
' "${@:2}"
}
data "$bin/git-vouch" "$work"/{push,agent,commit,tx}.mem \
  | awk '!seen[$0]++' > "$work/statics"
cat "$work/functions" "$work/statics" > "$here/bench/hot-symbols.txt"
echo "bench/hot-symbols.txt: $(wc -l < "$work/functions") functions, $(wc -l < "$work/statics") statics" >&2
