#!/usr/bin/env bash
# The four hook ratios every change to the hooks' path is measured by
# (issues 38 and 39), for each binary given, one after the other, with
# the load average before each:
#
#   commits  ../shared/bench/commit_loop.py BIN 50 7: 50 empty commits
#            with all three hooks, against three empty `sh` hooks
#   fetch    ../shared/bench/fetch_refs.py BIN 600 7: a fetch of 600 new
#            refs, against an empty compiled reference-transaction hook
#   push     bench/run.sh section 1: a fast-forward push, against an
#            empty `sh` pre-push hook
#   agent    bench/agent.sh section 1: a harmless command through
#            `agent-hook claude`, against a static no-op
#
# Usage: bench/four.sh BIN [BIN...]   (e.g. a build before and after a change)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$here/../shared/bench}
[ $# -gt 0 ] || { echo "usage: bench/four.sh BIN [BIN...]" >&2; exit 2; }
for bin in "$@"; do
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  echo "== $bin"
  echo "-- commits (load $(cut -d' ' -f1-3 /proc/loadavg))"
  python3 "$shared/commit_loop.py" "$bin" 50 7
  echo "-- fetch (load $(cut -d' ' -f1-3 /proc/loadavg))"
  python3 "$shared/fetch_refs.py" "$bin" 600 7
  echo "-- push (load $(cut -d' ' -f1-3 /proc/loadavg))"
  VOUCH_BIN=$bin SECTIONS=1 bash "$here/bench/run.sh" 100
  echo "-- agent (load $(cut -d' ' -f1-3 /proc/loadavg))"
  VOUCH_BIN=$bin SECTIONS=1 bash "$here/bench/agent.sh" 200
done
