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
# The repositories are written by bench/staged_repo.py.
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
    python3 "$here/bench/staged_repo.py" "$1" base
    git add -A && git commit -qm base && git repack -adq
    python3 "$here/bench/staged_repo.py" "$1" change
    git add -A
  )
}
for row in "${rows[@]}"; do make_repo "$row"; done
echo "staged: $(du -sh "$work/added-text/data/big.csv" | cut -f1) text, $(du -sh "$work/added-binary/data.bin" | cut -f1) binary"

bins=(vouch)
[ -n "$base" ] && bins+=(base)
run() { cd "$work/$2" && "$1" hook pre-commit; }
interleave "$runs" run

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
