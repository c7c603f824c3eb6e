#!/usr/bin/env bash
# vouch benchmark for `vouch eval` (issue 11), over the regression fixture
# `fixtures/eval/generated.jsonl` (the corpus the figures in BENCHMARKS.md
# were taken on) against a local server in the OpenAI wire format that
# answers at once.
# Usage: bench/eval.sh [runs]
#
#   overhead per case beyond the provider (target <= 5 ms): the whole run
#   divided by the cases, minus the server's own time per case. The CPU
#   time vouch spends per case (user + system) is printed beside it: it does
#   not depend on how many cases are asked at once.
set -euo pipefail
n=${1:-5}
source "$(dirname "$0")/common.sh"
corpus="$here/fixtures/eval/generated.jsonl"
cases=$(grep -c . "$corpus")

# The server: answers every POST with a verdict (block when the prompt says
# `critical`, proceed otherwise), and sums the time it spent on requests.
cat > "$work/server.py" <<'PY'
import json, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
def verdict(rec, s):
    return json.dumps({"verified": rec == "proceed", "confidence": 0.9, "concerns": [], "recommendation": rec,
        "reasoning": "bench", "scores": {"recoverability": s, "blast_radius": s, "intent_fit": s, "safeguards": s}})
def body(text):
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 80}}).encode()
block, proceed = body(verdict("block", 0.2)), body(verdict("proceed", 0.9))
spent = [0.0, 0]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        t = time.perf_counter()
        req = self.rfile.read(int(self.headers.get("content-length", 0)))
        out = block if b"critical" in req else proceed
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
        spent[0] += time.perf_counter() - t
        spent[1] += 1
    def do_GET(self):
        out = json.dumps({"count": spent[1], "ms": spent[0] * 1000}).encode()
        spent[0], spent[1] = 0.0, 0
        self.send_response(200)
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
python3 "$work/server.py" > "$work/port" &
on_exit "kill $! 2>/dev/null"
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
export OPENAI_API_KEY=sk-bench OPENAI_BASE_URL="http://127.0.0.1:$port/v1"

# One run: wall ms, CPU ms of vouch, server ms, requests.
run_once() {
  python3 - "$vouch" "$corpus" "$port" <<'PY'
import json, resource, subprocess, sys, time, urllib.request
vouch, corpus, port = sys.argv[1:]
urllib.request.urlopen(f"http://127.0.0.1:{port}/").read()  # reset the server's sums
t = time.perf_counter()
out = subprocess.run([vouch, "eval", "--corpus", corpus, "--provider", "openai", "--json"],
                     capture_output=True, check=True)
wall = (time.perf_counter() - t) * 1000
r = resource.getrusage(resource.RUSAGE_CHILDREN)
server = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/"))
report = json.loads(out.stdout)
assert report["cases"] > 0 and report["overall"]["unusable"]["count"] == 0, report["overall"]
print(f"{wall:.3f} {(r.ru_utime + r.ru_stime) * 1000:.3f} {server['ms']:.3f} {server['count']}")
PY
}

run_once > /dev/null # warm the page cache
walls=(); cpus=(); servers=()
for _ in $(seq "$n"); do
  read -r wall cpu server count < <(run_once)
  walls+=("$wall"); cpus+=("$cpu"); servers+=("$server")
done
median_f() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
wall=$(median_f "${walls[@]}"); cpu=$(median_f "${cpus[@]}"); server=$(median_f "${servers[@]}")
per_case=$(awk -v w="$wall" -v c="$cases" 'BEGIN { printf "%.3f", w / c }')
server_case=$(awk -v s="$server" -v c="$cases" 'BEGIN { printf "%.3f", s / c }')
overhead=$(awk -v a="$per_case" -v b="$server_case" 'BEGIN { printf "%.3f", a - b }')
cpu_case=$(awk -v a="$cpu" -v c="$cases" 'BEGIN { printf "%.3f", a / c }')
echo "vouch eval over $cases cases ($count requests a run), median of $n runs"
echo "  whole run:                 ${wall} ms"
echo "  per case:                  ${per_case} ms (server ${server_case} ms)"
echo "  overhead per case:         ${overhead} ms   target 5 ms, ratio $(ratio "$overhead" 5)"
echo "  vouch CPU time per case:   ${cpu_case} ms   ratio to 5 ms $(ratio "$cpu_case" 5)"
