#!/usr/bin/env bash
# The cost of an agent command's snapshot (issue 28 item 5), in a
# repository of 10,000 files with 100 modified and 20 untracked:
#
#   1. a snapshot of a changed state, against `git stash create` plus
#      `git add -A` into a temporary index on the same state (target: at
#      most 1x);
#   2. a state unchanged since the last snapshot, against
#      `git status --porcelain` (target: at most 1.5x).
#
# The snapshot's cost is `agent-hook claude` for a command that is not
# read-only (`make`) less the same hook for a read-only one (`ls`), so that
# process start, config and classification cancel out. Median of RUNS
# interleaved rounds.
#
#   bash bench/snapshot.sh [RUNS]     # default 15
set -euo pipefail
runs=${1:-15}
source "$(dirname "$0")/common.sh"
echo "git: $(git --version)   machine: $(nproc) cores   runs: $runs"
repo="$work/repo"
git init -q "$repo"
(
  cd "$repo"
  for d in $(seq 0 99); do
    mkdir -p "d$d"
    for f in $(seq 0 99); do echo "file $d/$f" > "d$d/f$f.txt"; done
  done
  git add -A && git commit -qm "10,000 files"
  for d in $(seq 0 99); do echo changed >> "d$d/f0.txt"; done
  for u in $(seq 0 19); do echo new > "untracked$u.txt"; done
)
input() { printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}' "$repo" "$1"; }
input make > "$work/make.json"
input ls > "$work/ls.json"

baseline() { # git stash create + git add -A into a temporary index
  (cd "$repo" && git stash create > /dev/null && cp .git/index "$work/tmp-index" &&
    GIT_INDEX_FILE="$work/tmp-index" git add -A && rm -f "$work/tmp-index")
}
changed_t=() unchanged_t=() ls_t=() base_t=() status_t=()
for i in $(seq "$runs"); do
  # A change outside the timing: the next snapshot has something new.
  echo "round $i" >> "$repo/d0/f1.txt"
  changed_t+=("$(once "$work/make.json" "$vouch" agent-hook claude)")
  unchanged_t+=("$(once "$work/make.json" "$vouch" agent-hook claude)")
  ls_t+=("$(once "$work/ls.json" "$vouch" agent-hook claude)")
  base_t+=("$(once /dev/null baseline)")
  status_t+=("$(once /dev/null git -C "$repo" status --porcelain)")
done
med() { printf '%s\n' "$@" | median; }
changed=$(med "${changed_t[@]}") unchanged=$(med "${unchanged_t[@]}") ls=$(med "${ls_t[@]}")
base=$(med "${base_t[@]}") status=$(med "${status_t[@]}")
snap=$(( changed - ls )) same=$(( unchanged - ls ))
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "snapshots written: $(git -C "$repo" for-each-ref refs/vouch/snapshots | wc -l)"
printf '1. changed state:   snapshot %8s ms   stash create + add -A %8s ms   x%s (target 1)\n' "$(ms "$snap")" "$(ms "$base")" "$(ratio "$snap" "$base")"
printf '2. unchanged state: check    %8s ms   git status --porcelain %7s ms   x%s (target 1.5)\n' "$(ms "$same")" "$(ms "$status")" "$(ratio "$same" "$status")"
printf '   (agent-hook for ls, no snapshot: %s ms)\n' "$(ms "$ls")"
