#!/usr/bin/env bash
# Single operations in a repository of 10,000 refs (issue 10: "no slower
# than before"): the whole hook or command process, this build against
# BENCH_BASE (an older binary) when given, rounds interleaved, medians.
# Usage: BENCH_BASE=/path/to/older/git-vouch bench/refs.sh [runs]
#
#   delete-unmerged   pre-push deleting one branch whose commit nothing else holds
#   delete-merged     pre-push deleting one branch another ref holds
#   rewrite           pre-push force-rewriting one branch (one commit lost)
#   local-delete      reference-transaction `prepared` of `git branch -D` of
#                     an unmerged branch (critical: decided and logged)
#   reset-hard        `git vouch check -- git reset --hard HEAD~1` (clean tree)
#
# The 10,000 refs are branches on distinct commits of a 10,000-commit line
# (BENCH_SHAPE=same: all on one commit of 20), packed, as a clone
# has them. No verifier, `critical = "allow"`: each run measures, classifies,
# decides and logs.
set -euo pipefail
runs=${1:-15}
source "$(dirname "$0")/common.sh"
base=${BENCH_BASE:-}
printf '[on_unavailable]\ncritical = "allow"\nhigh = "allow"\n' > "$XDG_CONFIG_HOME/vouch/config.toml"
echo "git: $(git --version)   machine: $(nproc) cores   runs: $runs"

r="$work/repo"
git init -q "$r"
git init -q --bare "$work/remote.git"
git -C "$r" remote add origin "$work/remote.git"
# 10,000 commits in a line, a branch on each (fast-import: seconds); with
# `same`, the 10,000 branches all on one commit of a short history.
shape=${BENCH_SHAPE:-distinct}
python3 - "$shape" <<'EOF' | git -C "$r" fast-import --quiet
import sys
n = 10000 if sys.argv[1] == "distinct" else 20
for i in range(1, n + 1):
    msg = f"commit {i}\n"
    print("commit refs/heads/main")
    print(f"mark :{i}")
    print(f"committer Bench <bench@example.com> {1700000000 + i} +0000")
    print(f"data {len(msg)}")
    print(msg, end="")
    if i > 1:
        print(f"from :{i - 1}")
    print(f"M 644 inline f{i % 100}.txt")
    body = f"{i}\n"
    print(f"data {len(body)}")
    print(body, end="")
    print()
for i in range(1, 10001):
    print(f"reset refs/heads/b{i}")
    print(f"from :{min(i, n)}")
    print()
EOF
git -C "$r" checkout -q main
# One branch with a commit of its own.
git -C "$r" checkout -q -b solo
git -C "$r" commit -q --allow-empty -m "only here"
git -C "$r" checkout -q main
git -C "$r" pack-refs --all
git -C "$r" repack -adq
zero=0000000000000000000000000000000000000000
solo=$(git -C "$r" rev-parse solo)
tip=$(git -C "$r" rev-parse main)
back=$(git -C "$r" rev-parse main~1)
echo "(delete) $zero refs/heads/solo $solo" > "$work/delete-unmerged"
echo "(delete) $zero refs/heads/b5 $(git -C "$r" rev-parse b5)" > "$work/delete-merged"
echo "refs/heads/main $back refs/heads/main $tip" > "$work/rewrite"
echo "$solo $zero refs/heads/solo" > "$work/local-delete"
echo "refs: $(git -C "$r" for-each-ref | wc -l) ($shape commits)"
[ -n "${BENCH_KEEP:-}" ] && { rm -rf "$BENCH_KEEP"; cp -r "$work" "$BENCH_KEEP"; }

run() { # $1: binary, $2: row
  case "$2" in
    delete-* | rewrite) "$1" hook pre-push -- origin "$work/remote.git" < "$work/$2" ;;
    local-delete) "$1" hook reference-transaction -- prepared < "$work/$2" ;;
    reset-hard) "$1" check -- git reset --hard HEAD~1 ;;
  esac
}
rows=(delete-unmerged delete-merged rewrite local-delete reset-hard)
bins=(vouch)
[ -n "$base" ] && bins+=(base)
cd "$r"
interleave "$runs" run

printf '\n%-16s %12s' row "vouch ms"
[ -n "$base" ] && printf ' %12s %8s' "base ms" "ratio"
echo
for row in "${rows[@]}"; do
  m=$(printf '%s\n' ${samples[vouch/$row]} | median)
  printf '%-16s %12s' "$row" "$(ms "$m")"
  if [ -n "$base" ]; then
    mb=$(printf '%s\n' ${samples[base/$row]} | median)
    printf ' %12s %7sx' "$(ms "$mb")" "$(ratio "$m" "$mb")"
  fi
  echo
done
[ -n "$base" ] && echo "ratio: this build against BENCH_BASE (goal: at most 1.0)"
exit 0
