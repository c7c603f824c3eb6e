#!/usr/bin/env bash
# vouch benchmarks for the AI verifier (issue 3), against a local server in
# the Anthropic wire format that answers at once. Prints every figure and its
# ratio against the baselines in one run. Usage: bench/ai.sh [runs]
#
#   1. decision overhead beyond the provider's own latency (target <= 10 ms):
#      the hook with the AI verifier, minus the same hook with no provider,
#      minus the time the server spent on each request
#   2. a repeated operation inside the cache window: requests counted at the
#      server (target: 0 after the first)
set -euo pipefail
n=${1:-51}
source "$(dirname "$0")/common.sh"

# The server: answers every POST with a proceed verdict, counts requests and
# the time it spent on each.
cat > "$work/server.py" <<'PY'
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
verdict = {"verified": True, "confidence": 0.95, "concerns": [], "recommendation": "proceed",
           "reasoning": "bench", "scores": {"recoverability": 0.9, "blast_radius": 0.9, "intent_fit": 0.9, "safeguards": 0.9}}
body = json.dumps({"content": [{"type": "text", "text": json.dumps(verdict)}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 900, "output_tokens": 80}}).encode()
spent = []
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        t = time.perf_counter()
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        spent.append(time.perf_counter() - t)
    def do_GET(self):
        s = sorted(spent)
        out = json.dumps({"count": len(s), "median_ms": (s[len(s) // 2] * 1000) if s else 0}).encode()
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
stats() { python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$port/'))['$1'])"; }

git init -q --bare "$work/remote.git"
git clone -q "$work/remote.git" "$work/repo" 2>/dev/null
for i in 1 2 3; do git -C "$work/repo" commit -q --allow-empty -m "c$i"; done
git -C "$work/repo" push -q origin main
line="refs/heads/main $(git -C "$work/repo" rev-parse main~1) refs/heads/main $(git -C "$work/repo" rev-parse main)"
echo "$line" > "$work/line"

hook() { time_hook "$work/repo" "$work/line" "$work/remote.git" "$n"; }

echo "machine: $(nproc) cores   runs: $n   server: python3 on 127.0.0.1:$port"
echo
# Baseline: the same hook, no provider has a key (the decision follows on_unavailable).
printf '[on_unavailable]\ncritical = "allow"\n[ai]\ncache_secs = 0\n' > "$XDG_CONFIG_HOME/vouch/config.toml"
t_none=$(hook)
export ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=bench-key VOUCH_PRIMARY=openai
t_ai=$(hook)
served=$(stats count)
server_ms=$(awk -v v="$(stats median_ms)" 'BEGIN { printf "%.2f", v }')
over=$(awk -v a="$t_ai" -v b="$t_none" -v s="$server_ms" 'BEGIN { printf "%.2f", (a - b) / 1e6 - s }')
echo "1. decision overhead beyond the provider's latency (median of $n hook runs, cache off)"
printf '   %-46s %8s ms\n' "hook, no AI provider (baseline)" "$(ms "$t_none")"
printf '   %-46s %8s ms   (%s requests served)\n' "hook, AI verifier answering at once" "$(ms "$t_ai")" "$served"
printf '   %-46s %8s ms\n' "server time per request (median)" "$server_ms"
printf '   %-46s %8s ms   target 10 ms: x%s\n' "overhead beyond the provider" "$over" "$(awk -v o="$over" 'BEGIN { printf "%.3f", o / 10 }')"
echo

# The cache: the same operation again and again inside cache_secs.
printf '[on_unavailable]\ncritical = "allow"\n[ai]\ncache_secs = 600\n' > "$XDG_CONFIG_HOME/vouch/config.toml"
rm -f "$XDG_STATE_HOME/vouch/ai-cache.json"
before=$(stats count)
t_cached=$(hook)
after=$(stats count)
echo "2. the same operation $n times inside the cache window"
printf '   %-46s %8s\n' "requests at the server" "$(( after - before ))"
printf '   %-46s %8s   target: 0 after the first\n' "requests after the first" "$(( after - before - 1 ))"
printf '   %-46s %8s ms   x%s of the no-provider hook\n' "hook answered from the cache (median)" "$(ms "$t_cached")" "$(awk -v a="$t_cached" -v b="$t_none" 'BEGIN { printf "%.3f", a / b }')"
