#!/usr/bin/env bash
# `vouch stats` over an audit log of 100,000 lines (issue 11). Target: at
# most 300 ms, for the text and for `--json`.
# Usage: bench/stats.sh [lines] [runs]
#
# The log is generated from the records of `fixtures/stats/audit.jsonl`
# (written by vouch's own `Record` type, see tests/it/stats.rs), each copy
# given its own time, id, repository, refs with object ids, the reasons,
# the built-in checks and the verdict text a real decision carries (about
# 1.5 KB a line, as real lines are: a force push with an AI verdict is
# 2.2 KB, a skipped commit 0.7 KB). It is split into 10 MB generations as
# vouch's rotation leaves it (`audit.jsonl`, `.1`, `.2`, ...), and
# `vouch log --json` must read every line back before anything is timed.
set -euo pipefail
lines=${1:-100000}
runs=${2:-11}
source "$(dirname "$0")/common.sh"

log="$work/state/vouch/audit.jsonl"
mkdir -p "$(dirname "$log")"
python3 - "$here/fixtures/stats/audit.jsonl" "$log" "$lines" <<'EOF'
import copy, datetime, hashlib, json, os, random, sys

fixture, log, lines = sys.argv[1], sys.argv[2], int(sys.argv[3])
templates = [json.loads(l) for l in open(fixture) if l.strip()]
rng = random.Random(11)
repos = [f"/home/dev/src/{n}" for n in ("app", "api", "infra", "docs", "site")]
hexs = lambda n: "".join(rng.choice("0123456789abcdef") for _ in range(n))
reasoning = ("Force-pushing main would discard {n} commits by {a} authors that exist "
             "nowhere else; the remote tip was fetched, but the branch is protected and shared.")
concern = "{n} commit(s) by {a} author(s) on `{b}` would be destroyed"
GEN = 10 * 1024 * 1024

def realistic(t, i):
    r = copy.deepcopy(t)
    # 30 s apart, with the nanoseconds jiff writes.
    s = 1793000000 + i * 30
    stamp = datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    r["timestamp"] = f"{stamp}.{rng.randrange(10**9):09d}Z"
    r["operation_id"] = hashlib.sha256(str(i).encode()).hexdigest()[:12]
    r["repo"] = rng.choice(repos)
    r["latency_ms"] = rng.randrange(5, 60)
    r["session_id"] = f"sess-{i // 40:06d}" if r["hook"] == "claude-code" else None
    n, a, b = rng.randrange(1, 40), rng.randrange(1, 6), rng.choice(["main", "release/2.4", "feature/login"])
    if r["risk_tier"] not in (None, "none"):
        r["reasons"] = [concern.format(n=n, a=a, b=b) + f" (force push to `{b}`, protected by `main`)"]
        r["remote"] = "git@github.com:example/" + r["repo"].rsplit("/", 1)[1] + ".git"
        r["refs"] = [{"remote_ref": f"refs/heads/{b}", "old_oid": hexs(40), "new_oid": hexs(40),
                      "change": "rewrite", "tier": r["risk_tier"], "rule": "force_push_protected",
                      "remote_tip": "known", "lost_commits": n}]
        if r.get("builtin"):
            r["builtin"] = {"verifier": "vouch-facts", "version": "0.1.0", "status": "warn",
                            "checks": [{"name": "force_push_protected", "status": "warn",
                                        "message": r["reasons"][0],
                                        "details": {"remote_ref": f"refs/heads/{b}", "change": "rewrite",
                                                    "remote_tip": "known", "lease": {"state": "holds"},
                                                    "lost_commits": n, "tier": r["risk_tier"]}}],
                            "summary": f"{r['risk_tier']} risk: 1 finding(s) from the repository's facts",
                            "blocking": False, "duration_ms": 0}
    if r.get("ai") and not r["ai"]["cached"]:
        r["ai"]["latency_ms"] = int(rng.lognormvariate(7, 0.5))
        r["ai"]["tokens_in"] = rng.randrange(900, 2000)
        r["ai"]["tokens_out"] = rng.randrange(80, 300)
    for v in r["verifiers"]:
        if v.get("verdict"):
            v["summary"] = v["verdict"]["reasoning"] = reasoning.format(n=n, a=a)
            if v["verdict"]["concerns"]:
                v["verdict"]["concerns"] = [concern.format(n=n, a=a, b=b), "no backup ref exists on the remote"]
                r["concerns"] = [f"{v['verifier']}: {c}" for c in v["verdict"]["concerns"]]
            v["duration_ms"] = r["ai"]["latency_ms"] if r.get("ai") else 0
    return r

# Written oldest first into generations of at most 10 MB, then renamed so
# that the newest is audit.jsonl and the oldest has the highest number.
files, size, out = [], 0, None
for i in range(lines):
    line = json.dumps(realistic(templates[i % len(templates)], i), separators=(",", ":")) + "\n"
    if out is None or size + len(line) > GEN:
        if out:
            out.close()
        files.append(f"{log}.part{len(files)}")
        out, size = open(files[-1], "w"), 0
    out.write(line)
    size += len(line)
out.close()
for k, f in enumerate(files):
    n = len(files) - 1 - k
    os.rename(f, log if n == 0 else f"{log}.{n}")
EOF

read_back=$("$vouch" log --json 2>"$work/log.err" | wc -l)
if [ "$read_back" -ne "$lines" ] || [ -s "$work/log.err" ]; then
  echo "vouch log read $read_back of $lines lines:" >&2
  head -5 "$work/log.err" >&2
  exit 1
fi
bytes=$(cat "$log"* | wc -c)
echo "git: $(git --version)   machine: $(nproc) cores"
echo "log: $lines lines, $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB, %.0f bytes a line", b / 1048576, b / '"$lines"' }') in $(ls "$log"* | wc -l) generation(s)"

# time_cmd RUNS CMD...: median ns of RUNS runs.
time_cmd() {
  local n=$1 times=()
  shift
  for _ in $(seq "$n"); do
    t0=$(now)
    "$@" >/dev/null
    t1=$(now)
    times+=($(( t1 - t0 )))
  done
  # common.sh's `median` prints with %d, which mawk caps at 2^31-1 ns (2.1 s).
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.0f\n", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

text=$(time_cmd "$runs" "$vouch" stats)
json=$(time_cmd "$runs" "$vouch" stats --json)
log_json=$(time_cmd "$runs" "$vouch" log --json)
echo
echo "| command | ms (median of $runs) | target 300 ms |"
echo "| --- | ---: | ---: |"
echo "| \`vouch stats\` | $(ms "$text") | $(ratio "$(ms "$text")" 300)x |"
echo "| \`vouch stats --json\` | $(ms "$json") | $(ratio "$(ms "$json")" 300)x |"
echo "| for scale: \`vouch log --json\` (reads and prints every line) | $(ms "$log_json") | |"
