#!/usr/bin/env bash
# Writes bench/hot-symbols.txt: the functions the hooks' everyday paths run,
# in the order they first run, which install.sh hands the linker
# (`--symbol-ordering-file`) so that they sit together at the start of the
# program's code. A hook is a short process on a machine where a page
# fault costs about 4 µs: code spread over 7 MB faults page after page,
# code packed together a few times (BENCHMARKS.md, issue 15, third session).
#
# The paths: the pre-push hook (a copy of vouch-hook) answering a
# fast-forward, `agent-hook claude` answering a harmless command, the
# pre-commit hook on a one-file change, and the reference-transaction hook
# judging a commit's branch update. Each runs under callgrind in a build
# with symbols and the same flags as install.sh's.
#
# A name the linker does not find (the code changed since) is skipped
# without a word: a stale file costs speed, never correctness. Run it again
# after large changes. Usage: bench/order.sh
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
cp "$work/target/$host/release/git-vouch" "$work/target/$host/release/vouch-hook" "$bin/"

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

cg() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" "${@:2}" >/dev/null 2>&1 || true; }
cg push .git/hooks/pre-push origin "$work/remote.git" < "$work/push.in"
cg agent "$bin/git-vouch" agent-hook claude < "$work/agent.json"
cg commit "$bin/git-vouch" hook pre-commit --hook-dir .git/hooks -- < /dev/null
cg tx "$bin/git-vouch" hook reference-transaction --hook-dir .git/hooks -- prepared < "$work/tx.in"

# Every function named in the profiles (`fn=`, `cfn=`), first seen first.
cat "$work"/{push,agent,commit,tx}.out \
  | sed -n 's/^c\{0,1\}fn=([0-9]*) \([^ ]*\)$/\1/p' \
  | grep -v '^0x' \
  | awk '!seen[$0]++' > "$here/bench/hot-symbols.txt"
echo "bench/hot-symbols.txt: $(wc -l < "$here/bench/hot-symbols.txt") functions" >&2
