#!/usr/bin/env bash
# The pre-commit hook's cost against the size of the staged change (issue
# 15, item 2): it should not grow unless a rule needs the content.
# Usage: bench/staged.sh [runs]      (BENCH_BASE=<older binary> adds a column)
#
# Each row stages one change in its own repository and times
# `git-vouch hook pre-commit` there (the hook's whole process, median of
# RUNS, rows interleaved). The ratio is against the first row, a 10-line
# change to one file: 1.0 means the size of the change costs nothing.
#   small          one file, 10 lines changed
#   added-text     one new file of 1,000,000 lines (39 MB)
#   added-binary   one new binary file of 40 MB
#   many-files     2,000 new files of 20 lines
#   deleted-text   a committed (packed) file of 200,000 lines deleted: the
#                  bulk-deletion rule needs its lines, counted to the 501st
#                  (a packed blob is inflated whole to get there)
#   modified-text  one line changed in a committed file of 200,000 lines:
#                  the large-change rule needs the diff of the whole file
set -euo pipefail
runs=${1:-9}
source "$(dirname "$0")/common.sh"
base=${BENCH_BASE:-}

echo "git: $(git --version)   machine: $(nproc) cores   runs: $runs"
rows=(small added-text added-binary many-files deleted-text modified-text)

make_repo() { # $1: row
  local r="$work/$1"
  git init -q "$r"
  (
    cd "$r"
    python3 - "$1" <<'EOF'
import os, sys
row = sys.argv[1]
def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
write("src/lib.rs", "".join(f"pub fn f{i}() {{}}\n" for i in range(200)))
if row in ("deleted-text", "modified-text"):
    write("data/table.csv", "".join(f"{i},{i * 7},{i % 13}\n" for i in range(200_000)))
EOF
    git add -A && git commit -qm base && git repack -adq
    python3 - "$1" <<'EOF'
import os, sys
row = sys.argv[1]
def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
if row == "small":
    write("src/lib.rs", "".join(f"pub fn g{i}() {{}}\n" if i < 10 else f"pub fn f{i}() {{}}\n" for i in range(200)))
elif row == "added-text":
    write("data/big.csv", "".join(f"{i},{i * 7},{i % 13},some text in a column\n" for i in range(1_000_000)))
elif row == "added-binary":
    with open("data.bin", "wb") as f:
        f.write(os.urandom(40 * 1024 * 1024))
elif row == "many-files":
    for i in range(2000):
        write(f"gen/m{i // 100}/f{i}.txt", "".join(f"line {j} of file {i}\n" for j in range(20)))
elif row == "deleted-text":
    os.remove("data/table.csv")
elif row == "modified-text":
    lines = open("data/table.csv").read().split("\n")
    lines[100_000] = "changed"
    write("data/table.csv", "\n".join(lines))
EOF
    git add -A
  )
}
for row in "${rows[@]}"; do make_repo "$row"; done
echo "staged: $(du -sh "$work/added-text/data/big.csv" | cut -f1) text, $(du -sh "$work/added-binary/data.bin" | cut -f1) binary"

bins=(vouch)
[ -n "$base" ] && bins+=(base)
declare -A samples
for _ in $(seq "$runs"); do
  for row in "${rows[@]}"; do
    for b in "${bins[@]}"; do
      bin=$vouch
      [ "$b" = base ] && bin=$base
      t0=$(now)
      (cd "$work/$row" && "$bin" hook pre-commit >/dev/null 2>&1) || true
      t1=$(now)
      samples[$b/$row]+="$(( t1 - t0 )) "
    done
  done
done

printf '\n%-14s' row
for b in "${bins[@]}"; do printf '%14s %8s' "$b ms" ratio; done
echo
declare -A first
for row in "${rows[@]}"; do
  printf '%-14s' "$row"
  for b in "${bins[@]}"; do
    m=$(printf '%s\n' ${samples[$b/$row]} | median)
    [ "$row" = small ] && first[$b]=$m
    printf '%14s %7sx' "$(ms "$m")" "$(ratio "$m" "${first[$b]}")"
  done
  echo
done
echo
echo "ratio: against the 'small' row of the same binary (goal: about 1.0 where no rule needs the content)"
