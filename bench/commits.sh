#!/usr/bin/env bash
# vouch benchmark for the commit path: 100 commits (a one-line change each)
# with vouch's hooks installed, with the same hooks as empty `sh` scripts,
# and with no hooks. Prints the ratios from one run. Usage: bench/commits.sh [n]
# (Issue 4 adds the reference-transaction hook to both hooked columns.)
set -euo pipefail
n=${1:-100}
source "$(dirname "$0")/common.sh"

hooks="pre-commit pre-push"
for v in none empty vouch direct; do
  git init -q "$work/$v"
  git -C "$work/$v" commit -q --allow-empty -m init
  case "$v" in
    empty) for h in $hooks; do printf '#!/bin/sh\nexit 0\n' > "$work/$v/.git/hooks/$h"; chmod +x "$work/$v/.git/hooks/$h"; done ;;
    vouch) (cd "$work/$v" && "$vouch" install >/dev/null 2>&1) ;;
    direct) (cd "$work/$v" && "$vouch" install --direct >/dev/null 2>&1) ;;
  esac
  : > "$work/times-$v"
done
for i in $(seq "$n"); do
  for v in none empty vouch direct; do
    echo "$i" >> "$work/$v/file.txt"
    git -C "$work/$v" add file.txt
    t0=$(now)
    git -C "$work/$v" commit -q -m "change $i"
    t1=$(now)
    echo $(( t1 - t0 )) >> "$work/times-$v"
  done
done
declare -A med
for v in none empty vouch direct; do med[$v]=$(median < "$work/times-$v"); done
echo "git: $(git --version)   machine: $(nproc) cores"
echo "commits, median of $n each (hooks: $hooks)"
for v in none empty vouch direct; do
  printf '   %-10s %8s ms/commit   x%s of the empty-hook commit\n' "$v" "$(ms "${med[$v]}")" "$(ratio "${med[$v]}" "${med[empty]}")"
done
