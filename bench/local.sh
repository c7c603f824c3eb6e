#!/usr/bin/env bash
# vouch benchmarks for the local doors (pre-commit, reference-transaction).
# One run prints every figure and its ratio against the baselines.
# Usage: bench/local.sh [commits] [fetch-runs] [rebase-runs]
#
#   1. 100 commits (a one-line change each): vouch with all three hooks
#      (also as `install --direct`, every hook a link to the binary);
#      the same three hooks as empty `sh` scripts; no hooks; and, for the
#      README's comparison, lefthook (npm `lefthook`) and prek (PyPI `prek`)
#      each running one no-op pre-commit command.
#      Target: vouch's overhead (over no hooks) at or below the empty-sh one.
#   2. `git fetch` of 600 branches, all new, then all force-updated: vouch;
#      an empty compiled reference-transaction hook (a C program that exits
#      0); no hook. Target: vouch at most 1.1x the compiled hook.
#   3. A rebase of 20 commits: the same columns, plus empty `sh` hooks.
set -euo pipefail
commits=${1:-100}
fetch_runs=${2:-5}
rebase_runs=${3:-15}
source "$(dirname "$0")/common.sh"

echo "git: $(git --version)   machine: $(nproc) cores"
echo

hooks3="pre-commit pre-push reference-transaction"
empty_sh() { # $1: repo, $2...: hooks
  local repo=$1; shift
  for h in "$@"; do
    printf '#!/bin/sh\nexit 0\n' > "$repo/.git/hooks/$h"
    chmod +x "$repo/.git/hooks/$h"
  done
}
# The empty compiled hook: the cheapest program git can start.
printf 'int main(void) { return 0; }\n' > "$work/true.c"
cc -O2 -o "$work/compiled-true" "$work/true.c"
empty_compiled() { cp "$work/compiled-true" "$1/.git/hooks/reference-transaction"; }
no_hooks() { git -c core.hooksPath=/dev/null "$@"; }

# Hook managers, installed into $work/tools when the registries answer.
tools="$work/tools"
mkdir -p "$tools"
lefthook=""
if command -v npm >/dev/null &&
  (cd "$tools" && npm install --silent --no-audit --no-fund lefthook >/dev/null 2>&1); then
  lefthook="$tools/node_modules/.bin/lefthook"
fi
prek=""
if command -v python3 >/dev/null &&
  python3 -m pip install -q --disable-pip-version-check --target "$tools/py" prek >/dev/null 2>&1; then
  prek="$tools/py/bin/prek"
  export PYTHONPATH="$tools/py"
fi

# --- 1. 100 commits ------------------------------------------------------------
columns=(none empty vouch direct)
[ -n "$lefthook" ] && columns+=(lefthook)
[ -n "$prek" ] && columns+=(prek)
for v in "${columns[@]}"; do
  r="$work/commit-$v"
  git init -q "$r"
  git -C "$r" commit -q --allow-empty -m init
  case "$v" in
    empty) empty_sh "$r" $hooks3 ;;
    vouch) (cd "$r" && "$vouch" install >/dev/null 2>&1) ;;
    direct) (cd "$r" && "$vouch" install --direct >/dev/null 2>&1) ;;
    lefthook)
      printf 'pre-commit:\n  commands:\n    noop:\n      run: "true"\n' > "$r/lefthook.yml"
      (cd "$r" && "$lefthook" install >/dev/null 2>&1) ;;
    prek)
      printf 'repos:\n- repo: local\n  hooks:\n  - id: noop\n    name: noop\n    entry: "true"\n    language: system\n    pass_filenames: false\n    always_run: true\n' > "$r/.pre-commit-config.yaml"
      git -C "$r" add .pre-commit-config.yaml
      git -C "$r" commit -q -m config
      (cd "$r" && "$prek" install >/dev/null 2>&1) ;;
  esac
  : > "$work/times-$v"
done
# Interleaved, so that drift in the machine's speed hits every column alike.
for i in $(seq "$commits"); do
  for v in "${columns[@]}"; do
    r="$work/commit-$v"
    echo "$i" >> "$r/file.txt"
    git -C "$r" add file.txt
    t0=$(now)
    git -C "$r" commit -q -m "change $i" >/dev/null 2>&1
    t1=$(now)
    echo $(( t1 - t0 )) >> "$work/times-$v"
  done
done
declare -A med
for v in "${columns[@]}"; do med[$v]=$(median < "$work/times-$v"); done
over() { echo $(( med[$1] - med[none] )); }
echo "1. $commits commits, median ms per commit (hooks: $hooks3)"
for v in "${columns[@]}"; do
  printf '   %-9s %7s ms   overhead %6s ms\n' "$v" "$(ms "${med[$v]}")" "$(ms "$(over "$v")")"
done
printf '   vouch overhead / empty-sh overhead: x%s (target <= 1); with --direct: x%s\n' "$(ratio "$(over vouch)" "$(over empty)")" "$(ratio "$(over direct)" "$(over empty)")"
[ -z "$lefthook" ] && echo "   (lefthook not measured: npm could not install it)"
[ -z "$prek" ] && echo "   (prek not measured: pip could not install it)"
echo

# --- 2. fetch of 600 branches ---------------------------------------------------
up="$work/upstream.git"
git init -q --bare "$up"
git clone -q "$up" "$work/seed" 2>/dev/null
git -C "$work/seed" commit -q --allow-empty -m base
git -C "$work/seed" push -q origin main
base=$(git -C "$work/seed" rev-parse HEAD)
# Two tips per branch: state A and state B, neither containing the other.
{
  for i in $(seq 600); do
    a=$(git -C "$work/seed" commit-tree -p "$base" -m "a$i" "$base^{tree}")
    b=$(git -C "$work/seed" commit-tree -p "$base" -m "b$i" "$base^{tree}")
    echo "$i $a $b"
  done
} > "$work/tips"
# The objects go to the upstream once; the branches are set with update-ref.
git -C "$work/seed" push -q origin $(awk '{print $2":refs/heads/sa"$1" "$3":refs/heads/sb"$1}' "$work/tips")
set_upstream() { # $1: column of tips/ (2 = A, 3 = B)
  awk -v c="$1" '{print "update refs/heads/b" $1 " " $c}' "$work/tips" | git -C "$up" update-ref --stdin
}
fetch_columns=(none compiled vouch)
for v in "${fetch_columns[@]}"; do
  r="$work/fetch-$v"
  git init -q "$r"
  git -C "$r" remote add origin "$up"
  git -C "$r" config fetch.prune false
  case "$v" in
    compiled) empty_compiled "$r" ;;
    vouch) (cd "$r" && "$vouch" install >/dev/null 2>&1) ;;
  esac
  : > "$work/new-$v"
  : > "$work/forced-$v"
done
for _ in $(seq "$fetch_runs"); do
  set_upstream 2
  for v in "${fetch_columns[@]}"; do
    r="$work/fetch-$v"
    git -C "$r" for-each-ref --format='delete %(refname)' refs/remotes | no_hooks -C "$r" update-ref --stdin
    t0=$(now); git -C "$r" fetch -q origin 'refs/heads/b*:refs/remotes/origin/b*'; t1=$(now)
    echo $(( t1 - t0 )) >> "$work/new-$v"
  done
  set_upstream 3
  for v in "${fetch_columns[@]}"; do
    r="$work/fetch-$v"
    t0=$(now); git -C "$r" fetch -q origin '+refs/heads/b*:refs/remotes/origin/b*'; t1=$(now)
    echo $(( t1 - t0 )) >> "$work/forced-$v"
  done
done
echo "2. git fetch of 600 branches, median of $fetch_runs (reference-transaction hooks)"
for kind in new forced; do
  declare -A f
  for v in "${fetch_columns[@]}"; do f[$v]=$(median < "$work/$kind-$v"); done
  printf '   %-7s none %7s ms   compiled %7s ms   vouch %7s ms   vouch/compiled x%s (target <= 1.1)\n' \
    "$kind" "$(ms "${f[none]}")" "$(ms "${f[compiled]}")" "$(ms "${f[vouch]}")" "$(ratio "${f[vouch]}" "${f[compiled]}")"
done
echo

# --- 3. rebase of 20 commits ----------------------------------------------------
rebase_columns=(none empty compiled vouch)
for v in "${rebase_columns[@]}"; do
  r="$work/rebase-$v"
  git init -q "$r"
  git -C "$r" commit -q --allow-empty -m base
  git -C "$r" switch -q -c feature
  for i in $(seq 20); do echo "$i" > "$r/f$i.txt"; git -C "$r" add "f$i.txt"; git -C "$r" commit -q -m "feature $i"; done
  git -C "$r" switch -q main
  echo main > "$r/main.txt"; git -C "$r" add main.txt; git -C "$r" commit -q -m "main moves"
  git -C "$r" switch -q feature
  git -C "$r" branch start
  case "$v" in
    empty) empty_sh "$r" $hooks3 ;;
    compiled) empty_compiled "$r" ;;
    vouch) (cd "$r" && "$vouch" install >/dev/null 2>&1) ;;
  esac
  : > "$work/rebase-$v.times"
done
for _ in $(seq "$rebase_runs"); do
  for v in "${rebase_columns[@]}"; do
    r="$work/rebase-$v"
    t0=$(now); git -C "$r" rebase -q main; t1=$(now)
    echo $(( t1 - t0 )) >> "$work/rebase-$v.times"
    no_hooks -C "$r" reset -q --hard start
  done
done
declare -A rb
for v in "${rebase_columns[@]}"; do rb[$v]=$(median < "$work/rebase-$v.times"); done
echo "3. rebase of 20 commits, median of $rebase_runs"
for v in "${rebase_columns[@]}"; do
  printf '   %-9s %7s ms   x%s of the compiled hook\n' "$v" "$(ms "${rb[$v]}")" "$(ratio "${rb[$v]}" "${rb[compiled]}")"
done
