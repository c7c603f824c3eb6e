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
# Then (issue 36 item 5) the shape of a project with dependencies: 10,000
# tracked files, 1,000 untracked and 100,000 ignored files in an ignored
# `node_modules/`, against `git status --porcelain` on the same state
# (targets: a snapshot at most 2x, an unchanged check and the post-tool
# check at most 1.2x), and each against the same state with no ignored
# files (target: at most 1.2x).
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
echo "snapshots written: $(for s in "$XDG_STATE_HOME"/vouch/snapshots/*/; do GIT_DIR=$s git for-each-ref refs/snapshots; done | wc -l)"
printf '1. changed state:   snapshot %8s ms   stash create + add -A %8s ms   x%s (target 1)\n' "$(ms "$snap")" "$(ms "$base")" "$(ratio "$snap" "$base")"
printf '2. unchanged state: check    %8s ms   git status --porcelain %7s ms   x%s (target 1.5)\n' "$(ms "$same")" "$(ms "$status")" "$(ratio "$same" "$status")"
printf '   (agent-hook for ls, no snapshot: %s ms)\n' "$(ms "$ls")"

# Issue 36 item 5: with and without 100,000 ignored files.
shape() { # $1: directory, $2: 1 for the ignored node_modules/
  local r=$1
  git init -q "$r"
  (
    cd "$r"
    for d in $(seq 0 99); do
      mkdir -p "d$d"
      for f in $(seq 0 99); do echo "file $d/$f" > "d$d/f$f.txt"; done
    done
    printf 'node_modules/\n.env\n' > .gitignore
    git add -A && git commit -qm "10,000 files"
    for d in $(seq 0 99); do echo changed >> "d$d/f0.txt"; done
    mkdir -p new
    for u in $(seq 0 999); do echo new > "new/untracked$u.txt"; done
    echo "SECRET=1" > .env
    if [ "$2" = 1 ]; then
      for p in $(seq 0 999); do
        mkdir -p "node_modules/p$p"
        for f in $(seq 0 99); do : > "node_modules/p$p/f$f.js"; done
      done
    fi
  )
}
measure() { # $1: repository; prints "snapshot unchanged after status" in ns
  local r=$1 m="$work/m.json" l="$work/l.json" a="$work/a.json"
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make"}}' "$r" > "$m"
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' "$r" > "$l"
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_response":{"stdout":"","stderr":"","interrupted":false}}' "$r" > "$a"
  local c=() u=() p=() s=() l_t=()
  for i in $(seq "$runs"); do
    echo "round $i" >> "$r/d0/f1.txt"
    c+=("$(once "$m" "$vouch" agent-hook claude)")
    u+=("$(once "$m" "$vouch" agent-hook claude)")
    p+=("$(once "$a" "$vouch" agent-hook claude)")
    l_t+=("$(once "$l" "$vouch" agent-hook claude)")
    s+=("$(once /dev/null git -C "$r" status --porcelain)")
  done
  local ls_med; ls_med=$(med "${l_t[@]}")
  echo "$(( $(med "${c[@]}") - ls_med )) $(( $(med "${u[@]}") - ls_med )) $(( $(med "${p[@]}") - ls_med )) $(med "${s[@]}")"
}
shape "$work/plain" 0
shape "$work/deps" 1
# The first snapshot of each (the store made, the packs linked) outside the timing.
for r in "$work/plain" "$work/deps"; do
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make"}}' "$r" | "$vouch" agent-hook claude > /dev/null 2>&1 || true
done
read -r p_snap p_same p_after p_status <<< "$(measure "$work/plain")"
read -r d_snap d_same d_after d_status <<< "$(measure "$work/deps")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "10,000 tracked, 1,000 untracked, and 100,000 ignored files in node_modules/ (deps) or none (plain):"
printf '3. snapshot:        deps %8s ms  plain %8s ms   deps/status x%s (target 2)   deps/plain x%s (target 1.2)\n' "$(ms "$d_snap")" "$(ms "$p_snap")" "$(ratio "$d_snap" "$d_status")" "$(ratio "$d_snap" "$p_snap")"
printf '4. unchanged check: deps %8s ms  plain %8s ms   deps/status x%s (target 1.2) deps/plain x%s (target 1.2)\n' "$(ms "$d_same")" "$(ms "$p_same")" "$(ratio "$d_same" "$d_status")" "$(ratio "$d_same" "$p_same")"
printf '5. post-tool check: deps %8s ms  plain %8s ms   deps/status x%s (target 1.2) deps/plain x%s (target 1.2)\n' "$(ms "$d_after")" "$(ms "$p_after")" "$(ratio "$d_after" "$d_status")" "$(ratio "$d_after" "$p_after")"
printf '   git status --porcelain: deps %s ms  plain %s ms\n' "$(ms "$d_status")" "$(ms "$p_status")"
