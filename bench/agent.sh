#!/usr/bin/env bash
# vouch benchmarks for the agent door. One run prints every figure.
# Usage: bench/agent.sh [runs]
#
#   1. A harmless read-only command through `vouch agent-hook claude`, the
#      whole process (start, read the JSON, config, parse, classify,
#      answer), median of `runs`. Target: at most 2 ms. For scale:
#      `/bin/true` fed the same input; a harmless command that is not
#      read-only (`cargo test`), which pays the snapshot's unchanged check
#      (issue 28; bench/snapshot.sh measures snapshots); and a dangerous
#      command in a dirty repository (facts measured; no verifier
#      configured, so it is answered `ask`).
#   2. 10,000 commands from fixtures/commands.tsv classified in-process
#      (the ignored timing test, in release). Target: at most 100 ms.
#
# SECTIONS="1" runs only the first (section 2 builds a release test binary).
set -euo pipefail
runs=${1:-200}
source "$(dirname "$0")/common.sh"

echo "git: $(git --version)   machine: $(nproc) cores   runs: $runs"
repo="$work/repo"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init
echo dirty > "$repo/file.txt"; git -C "$repo" add file.txt; git -C "$repo" commit -q -m file
echo unsaved >> "$repo/file.txt"
input() { printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}' "$repo" "$1"; }
printf '%s' "$(input 'git status \u0026\u0026 git log --oneline -5')" > "$work/harmless.json"
printf '%s' "$(input 'git status \u0026\u0026 cargo test --workspace')" > "$work/builds.json"
printf '%s' "$(input 'git reset --hard HEAD~1')" > "$work/dangerous.json"

# The baseline of issue 15: a static no-op that reads the same stdin.
printf '#include <unistd.h>\nint main(void) { char b[4096]; while (read(0, b, sizeof b) > 0) {} return 0; }\n' > "$work/noop.c"
cc -O2 -static -o "$work/noop" "$work/noop.c" 2>/dev/null || cc -O2 -o "$work/noop" "$work/noop.c"
# Interleaved rounds: each round runs every program once, so that a change
# in the machine's load reaches all figures alike.
true_t=() noop_t=() harmless_t=() builds_t=() dangerous_t=()
# The first non-read-only command takes the snapshot; the rounds measure
# the unchanged check.
"$vouch" agent-hook claude < "$work/builds.json" > /dev/null 2>&1 || true
for _ in $(seq "$runs"); do
  true_t+=("$(once "$work/harmless.json" /bin/true)")
  noop_t+=("$(once "$work/harmless.json" "$work/noop")")
  harmless_t+=("$(once "$work/harmless.json" "$vouch" agent-hook claude)")
  builds_t+=("$(once "$work/builds.json" "$vouch" agent-hook claude)")
  dangerous_t+=("$(once "$work/dangerous.json" "$vouch" agent-hook claude)")
done
true_ns=$(printf '%s\n' "${true_t[@]}" | median)
noop_ns=$(printf '%s\n' "${noop_t[@]}" | median)
harmless_ns=$(printf '%s\n' "${harmless_t[@]}" | median)
builds_ns=$(printf '%s\n' "${builds_t[@]}" | median)
dangerous_ns=$(printf '%s\n' "${dangerous_t[@]}" | median)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "1. agent-hook claude, whole process, median of $runs interleaved rounds"
printf '   harmless command   %7s ms   (target 2 ms: x%s)\n' "$(ms "$harmless_ns")" "$(ratio "$harmless_ns" 2000000)"
printf '   static no-op       %7s ms   (reads the same stdin; vouch x%s, target 1.5)\n' "$(ms "$noop_ns")" "$(ratio "$harmless_ns" "$noop_ns")"
printf '   /bin/true          %7s ms   (process start, for scale)\n' "$(ms "$true_ns")"
printf '   cargo test, unchanged %4s ms   (not read-only: the snapshot'"'"'s unchanged check)\n' "$(ms "$builds_ns")"
printf '   reset --hard, dirty %6s ms   (facts measured, answered ask)\n' "$(ms "$dangerous_ns")"
echo

[[ " ${SECTIONS:-1 2} " == *" 2 "* ]] || exit 0
echo "2. in-process classification (release test binary)"
(cd "$here" && cargo test --release --locked --quiet --lib \
  classify::shell::tests::speed_of_ten_thousand_classifications -- --ignored --nocapture) 2>&1 |
  grep -E "ready in|classifications in|parses in" | sed 's/^/   /' || echo "   (the timing test did not run)"

echo "   target: 10,000 classifications in at most 100 ms"
