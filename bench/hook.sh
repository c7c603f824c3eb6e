#!/usr/bin/env bash
# The pre-push hook's own process, without the push around it (issue 15):
# a fast-forward's ref line given to each hook N times, round by round, the
# parent a program named `git` as under `git push`. Prints the 10th
# percentile and median of each and their ratio to an empty `sh` hook.
# Usage: bench/hook.sh [runs]
#
#   empty    an empty `sh` pre-push hook (the baseline)
#   vouch    vouch's default hook (the gate starting git-vouch, which
#            answers a fast-forward before any other start-up work)
#   script   the `sh` script hook starting git-vouch (what a build without
#            the gate installs, and beside a hook manager)
#   direct   git-vouch linked as the hook (`install --direct`)
#   true     a static C program that exits (the floor of a process)
set -euo pipefail
runs=${1:-3000}
source "$(dirname "$0")/common.sh"

cc -O2 -o "$work/spawn" "$here/bench/spawn.c"
mkdir -p "$work/as-git" && ln -s "$work/spawn" "$work/as-git/git"
printf 'int main(void) { return 0; }\n' > "$work/true.c"
cc -O2 -static -o "$work/true" "$work/true.c"

git init -q --bare "$work/remote.git"
git clone -q "$work/remote.git" "$work/w" 2>/dev/null
git -C "$work/w" commit -q --allow-empty -m one
git -C "$work/w" push -q origin main
git -C "$work/w" commit -q --allow-empty -m two
echo "refs/heads/main $(git -C "$work/w" rev-parse HEAD) refs/heads/main $(git -C "$work/w" rev-parse HEAD~1)" > "$work/in"
printf '#!/bin/sh\nexit 0\n' > "$work/empty"
chmod +x "$work/empty"
(cd "$work/w" && "$vouch" install --hooks pre-push >/dev/null 2>&1)
mkdir -p "$work/direct" && ln -s "$vouch" "$work/direct/pre-push"
# The script hook, rendered from the template as `install` renders it
# (the hook runs in `w`, whose repository it judges).
mkdir -p "$work/script"
sed -e "s|@HOOK@|pre-push|g" -e "s|@WHAT@|push|g" -e "s|@VOUCH_STRICT@|0|g" \
  -e "s|@VOUCH_BIN@|$vouch|g" "$here/hooks/hook.sh" > "$work/script/pre-push"
chmod +x "$work/script/pre-push"

cd "$work/w"
args=(origin "$work/remote.git")
mapfile -t out < <("$work/as-git/git" "$runs" "$work/in" -- \
  "$work/empty" "${args[@]}" ";;" .git/hooks/pre-push "${args[@]}" ";;" \
  "$work/script/pre-push" "${args[@]}" ";;" \
  "$work/direct/pre-push" "${args[@]}" ";;" "$work/true")
names=(empty vouch script direct true)
read -r base_p10 base_med <<< "${out[0]}"
echo "pre-push hook process for a fast-forward, $runs runs each, interleaved (us)"
for i in "${!names[@]}"; do
  read -r p10 med <<< "${out[$i]}"
  printf '   %-7s p10 %8.1f  median %8.1f   x%s / x%s of the empty sh hook\n' "${names[$i]}" "$p10" "$med" \
    "$(awk -v a="$p10" -v b="$base_p10" 'BEGIN { printf "%.3f", a / b }')" \
    "$(awk -v a="$med" -v b="$base_med" 'BEGIN { printf "%.3f", a / b }')"
done
