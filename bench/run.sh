#!/usr/bin/env bash
# vouch benchmarks for the pre-push door. Prints every figure and its ratio
# against the baselines in one run. Usage: bench/run.sh [iterations]
#
#   1. fast-forward push to a local bare remote: vouch's default hook (the
#      gate starting git-vouch, which answers at once), vouch linked
#      directly (--direct: git-vouch itself), an empty `sh` hook, no hook
#      (target, issue 25: vouch at most 1.05x the empty hook)
#   2. force-push facts on a repository of 100,000 commits, whole hook
#      process up to (and past) the verifier call (target: <= 50 ms)
#   3. 10,000 refs in one push (target: <= 200 ms)
#
# SECTIONS="1" runs section 1 only; "1 3" leaves out section 2.
set -euo pipefail
sections=" ${SECTIONS:-1 2 3} "
n=${1:-100}
source "$(dirname "$0")/common.sh"
printf '[on_unavailable]\ncritical = "allow"\n' > "$XDG_CONFIG_HOME/vouch/config.toml"

echo "git: $(git --version)   machine: $(nproc) cores   iterations: $n"
echo

# --- 1. fast-forward push ----------------------------------------------------
setup() { # $1: name, $2: hook kind
  git init -q --bare "$work/$1.git"
  git clone -q "$work/$1.git" "$work/$1" 2>/dev/null
  git -C "$work/$1" commit -q --allow-empty -m init
  git -C "$work/$1" push -q origin main
  case "$2" in
    empty) printf '#!/bin/sh\nexit 0\n' > "$work/$1/.git/hooks/pre-push"; chmod +x "$work/$1/.git/hooks/pre-push" ;;
    vouch) (cd "$work/$1" && "$vouch" install --hooks pre-push >/dev/null 2>&1) ;;
    direct) (cd "$work/$1" && "$vouch" install --hooks pre-push --direct >/dev/null 2>&1) ;;
  esac
}
declare -A med hook
for v in none empty vouch direct; do setup "ff-$v" "$v"; : > "$work/times-$v"; : > "$work/hook-$v"; done
# Interleaved, so that drift in the machine's speed hits every column alike.
# git's trace2 events give the hook's own time inside the push (from its
# start to git seeing it exit), which a push's noise does not blur.
for _ in $(seq "$n"); do
  for v in none empty vouch direct; do
    git -C "$work/ff-$v" commit -q --allow-empty -m next
    rm -f "$work/events"
    t0=$(now)
    GIT_TRACE2_EVENT="$work/events" git -C "$work/ff-$v" push -q origin main
    t1=$(now)
    echo $(( t1 - t0 )) >> "$work/times-$v"
    # The hook's start names its process (sid) and child id; its exit, t_rel.
    start=$(grep -m1 '"child_class":"hook"' "$work/events" || true)
    if [ -n "$start" ]; then
      sid=$(sed -n 's/.*"sid":"\([^"]*\)".*/\1/p' <<< "$start")
      id=$(sed -n 's/.*"child_id":\([0-9]*\).*/\1/p' <<< "$start")
      grep '"event":"child_exit"' "$work/events" | grep -F "\"sid\":\"$sid\"" | grep -m1 "\"child_id\":$id," \
        | sed 's/.*"t_rel":\([0-9.]*\).*/\1/' | awk '{ printf "%d\n", $1 * 1e9 }' >> "$work/hook-$v"
    fi
  done
done
for v in none empty vouch direct; do med[$v]=$(median < "$work/times-$v"); done
for v in empty vouch direct; do hook[$v]=$(median < "$work/hook-$v"); done
echo "1. fast-forward push to a local bare remote (median of $n pushes each; the hook as git times it)"
for v in none empty vouch direct; do
  printf '   %-12s %8s ms/push   x%s of the empty-hook push' "$v" "$(ms "${med[$v]}")" "$(ratio "${med[$v]}" "${med[empty]}")"
  [ "$v" = none ] || printf '   hook %6s ms  x%s' "$(ms "${hook[$v]}")" "$(ratio "${hook[$v]}" "${hook[empty]}")"
  echo
done
echo "   target: vouch <= 1.05x of the empty hook (vouch: the default hook, the gate starting git-vouch; direct: vouch install --direct, git-vouch linked as the hook)"
echo

# --- 2. facts on 100,000 commits -----------------------------------------------
[[ "$sections" == *" 2 "* || "$sections" == *" 3 "* ]] || exit 0
if [[ "$sections" == *" 2 "* ]]; then
big="$work/big"
git init -q "$big"
python3 - "$big" <<'PY'
import subprocess, sys
repo = sys.argv[1]
p = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet"], stdin=subprocess.PIPE)
w = p.stdin.write
for i in range(1, 100001):
    msg = f"commit {i}\n".encode()
    w(b"commit refs/heads/main\n")
    w(f"mark :{i}\n".encode())
    w(f"committer Dev{i % 7} <dev{i % 7}@example.com> {1700000000 + i} +0000\n".encode())
    w(f"data {len(msg)}\n".encode() + msg)
    if i > 1:
        w(f"from :{i - 1}\n".encode())
    w(f"M 644 inline f{i % 100}.txt\ndata {len(msg)}\n".encode() + msg)
p.stdin.close()
sys.exit(p.wait())
PY
git -C "$big" reset -q --hard main
git init -q --bare "$work/big-remote.git"
git -C "$big" remote add origin "$work/big-remote.git"
tip=$(git -C "$big" rev-parse main)
git -C "$big" update-ref refs/remotes/origin/main "$tip"
count=$(git -C "$big" rev-list --count main)

run_hook() { time_hook "$1" "$2" "$work/big-remote.git" 21; }
empty_proc() {
  local times=()
  for _ in $(seq 21); do t0=$(now); /bin/true; t1=$(now); times+=($(( t1 - t0 ))); done
  printf '%s\n' "${times[@]}" | median
}
base=$(empty_proc)

rewind="$work/rewind.txt"
echo "refs/heads/main $(git -C "$big" rev-parse main~10) refs/heads/main $tip" > "$rewind"
deep="$work/deep.txt"
side=$(git -C "$big" commit-tree -p main~50000 -m side "$(git -C "$big" rev-parse 'main~50000^{tree}')")
echo "refs/heads/main $side refs/heads/main $tip" > "$deep"
t_rewind=$(run_hook "$big" "$rewind")
t_deep=$(run_hook "$big" "$deep")
git_times=()
for _ in $(seq 21); do
  t0=$(now); git -C "$big" rev-list --count "$tip" "^$side" >/dev/null; t1=$(now)
  git_times+=($(( t1 - t0 )))
done
t_git_deep=$(printf '%s\n' "${git_times[@]}" | median)
echo "2. force-push facts, repository of $count commits (median of 21 whole hook runs: start, read, measure, decide, log)"
printf '   %-44s %8s ms   target 50 ms: x%s\n' "rewind main by 10 commits (lost: 10)" "$(ms "$t_rewind")" "$(ratio "$t_rewind" 50000000)"
printf '   %-44s %8s ms   (beyond the target) x%s of git rev-list --count on the same commits\n' "rewrite from 50,000 commits back" "$(ms "$t_deep")" "$(ratio "$t_deep" "$t_git_deep")"
printf '   %-44s %8s ms\n' "  git rev-list --count of those commits" "$(ms "$t_git_deep")"
printf '   %-44s %8s ms\n' "baseline: starting /bin/true" "$(ms "$base")"
echo
fi

# --- 3. 10,000 refs in one push -------------------------------------------------
[[ "$sections" == *" 3 "* ]] || exit 0
many="$work/many"
git init -q "$many"
git -C "$many" commit -q --allow-empty -m one
git -C "$many" commit -q --allow-empty -m two
git -C "$many" remote add origin "$work/big-remote.git"
old=$(git -C "$many" rev-parse HEAD~1)
new=$(git -C "$many" rev-parse HEAD)
zero=0000000000000000000000000000000000000000
{ for i in $(seq 10000); do echo "create refs/heads/b$i $old"; done; } | git -C "$many" update-ref --stdin
ff="$work/ff10k.txt"; : > "$ff"
creates="$work/new10k.txt"; : > "$creates"
deletes="$work/del10k.txt"; : > "$deletes"
for i in $(seq 10000); do
  echo "refs/heads/b$i $new refs/heads/b$i $old" >> "$ff"
  echo "refs/heads/n$i $new refs/heads/n$i $zero" >> "$creates"
  echo "(delete) $zero refs/heads/b$i $old" >> "$deletes"
done
t_ff_loose=$(run_hook "$many" "$ff")
t_del_loose=$(run_hook "$many" "$deletes")
# A repository with 10,000 branches normally has them packed (clone, gc and
# pack-refs do it); loose refs cost a file read each.
git -C "$many" pack-refs --all
t_ff=$(run_hook "$many" "$ff")
t_new=$(run_hook "$many" "$creates")
t_del=$(run_hook "$many" "$deletes")
echo "3. 10,000 refs in one push (median of 21 whole hook runs)"
printf '   %-44s %8s ms   target 200 ms: x%s\n' "10,000 fast-forwards (packed refs)" "$(ms "$t_ff")" "$(ratio "$t_ff" 200000000)"
printf '   %-44s %8s ms   target 200 ms: x%s\n' "10,000 new branches" "$(ms "$t_new")" "$(ratio "$t_new" 200000000)"
printf '   %-44s %8s ms   target 200 ms: x%s (critical: measured, decided, logged)\n' "10,000 deletions (packed refs)" "$(ms "$t_del")" "$(ratio "$t_del" 200000000)"
printf '   %-44s %8s ms   target 200 ms: x%s\n' "10,000 fast-forwards (10,000 loose refs)" "$(ms "$t_ff_loose")" "$(ratio "$t_ff_loose" 200000000)"
printf '   %-44s %8s ms   target 200 ms: x%s\n' "10,000 deletions (10,000 loose refs)" "$(ms "$t_del_loose")" "$(ratio "$t_del_loose" 200000000)"
