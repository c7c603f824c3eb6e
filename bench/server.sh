#!/usr/bin/env bash
# vouch benchmarks for the server door (issue 16): pushes over smart HTTP
# (nginx + fcgiwrap + git http-backend on 127.0.0.1) into bare repositories
# with vouch's pre-receive, an empty `sh` pre-receive, and none. Prints every
# figure and its ratio in one run. Usage: bench/server.sh [pushes] [refs] [rounds]
#
#   1. a fast-forward push over smart HTTP: vouch's pre-receive vs an empty
#      one (target: vouch within 1.05x of the empty hook)
#   2. a push of 1,000 refs (created, then deleted), over smart HTTP, and
#      the pre-receive hook alone deciding the 1,000 deletions (target: the
#      decision within 1 s)
set -euo pipefail
n=${1:-50}
refs=${2:-1000}
rounds=${3:-5}
source "$(dirname "$0")/common.sh"
for tool in nginx fcgiwrap; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "needs $tool (apt-get install nginx fcgiwrap)"; exit 2; }
done
# No key: the deletions are decided by the rules and the unavailable rule.
printf '[on_unavailable]\ncritical = "allow"\n' > "$XDG_CONFIG_HOME/vouch/config.toml"

echo "git: $(git --version)   machine: $(nproc) cores   pushes: $n   refs: $refs x $rounds rounds"
echo

# --- the server ------------------------------------------------------------------
srv="$work/srv"
http="$work/http"
mkdir -p "$srv" "$http/tmp"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sock="$http/fcgi.sock"
/usr/sbin/fcgiwrap -s "unix:$sock" 2>"$http/fcgiwrap.log" &
fcgi_pid=$!
on_exit "kill $fcgi_pid 2>/dev/null || true"
params=""
for v in PATH HOME XDG_CONFIG_HOME XDG_STATE_HOME XDG_DATA_HOME GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL VOUCH_HEADLESS; do
  params+="      fastcgi_param $v \"${!v}\";"$'\n'
done
cat > "$http/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $http/nginx.pid;
error_log $http/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $http/tmp/body;
  fastcgi_temp_path $http/tmp/fastcgi;
  proxy_temp_path $http/tmp/proxy;
  uwsgi_temp_path $http/tmp/uwsgi;
  scgi_temp_path $http/tmp/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$port;
    location ~ ^/git(/.*)\$ {
      fastcgi_pass unix:$sock;
      fastcgi_param SCRIPT_FILENAME $(git --exec-path)/git-http-backend;
      fastcgi_param PATH_INFO \$1;
      fastcgi_param QUERY_STRING \$query_string;
      fastcgi_param REQUEST_METHOD \$request_method;
      fastcgi_param CONTENT_TYPE \$content_type;
      fastcgi_param CONTENT_LENGTH \$content_length;
      fastcgi_param GIT_PROJECT_ROOT $srv;
      fastcgi_param GIT_HTTP_EXPORT_ALL 1;
      fastcgi_param REMOTE_USER bench;
$params    }
  }
}
EOF
/usr/sbin/nginx -p "$http" -e "$http/error.log" -c "$http/nginx.conf" 2>>"$http/error.log" &
nginx_pid=$!
on_exit "kill $nginx_pid 2>/dev/null || true"
for _ in $(seq 200); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done

kinds=(none empty vouch)
for v in "${kinds[@]}"; do
  git init -q --bare "$srv/$v.git"
  case "$v" in
    empty) printf '#!/bin/sh\nexit 0\n' > "$srv/$v.git/hooks/pre-receive"; chmod +x "$srv/$v.git/hooks/pre-receive" ;;
    vouch) "$vouch" install --server --repo "$srv/$v.git" >/dev/null 2>&1 ;;
  esac
  git clone -q "http://127.0.0.1:$port/git/$v.git" "$work/c-$v" 2>/dev/null
  git -C "$work/c-$v" commit -q --allow-empty -m init
  git -C "$work/c-$v" push -q origin main
done

# --- 1. fast-forward push over smart HTTP ------------------------------------------
declare -A med
for v in "${kinds[@]}"; do : > "$work/times-$v"; done
# Interleaved, so that drift in the machine's speed hits every column alike.
for _ in $(seq "$n"); do
  for v in "${kinds[@]}"; do
    git -C "$work/c-$v" commit -q --allow-empty -m next
    t0=$(now)
    git -C "$work/c-$v" push -q origin main
    t1=$(now)
    echo $(( t1 - t0 )) >> "$work/times-$v"
  done
done
for v in "${kinds[@]}"; do med[$v]=$(median < "$work/times-$v"); done
echo "1. fast-forward push over smart HTTP (nginx + fcgiwrap + git http-backend; median of $n pushes each)"
for v in "${kinds[@]}"; do
  printf '   %-8s %8s ms/push   x%s of the empty pre-receive\n' "$v" "$(ms "${med[$v]}")" "$(ratio "${med[$v]}" "${med[empty]}")"
done
echo "   target: vouch <= 1.05x of the empty pre-receive"
grep -c '"hook":"pre-receive"' "$XDG_STATE_HOME/vouch/audit.jsonl" 2>/dev/null | sed 's/^/   audit lines written by the fast-forwards: /' || echo "   audit lines written by the fast-forwards: 0"
echo

# --- 2. 1,000 refs in one push -------------------------------------------------------
for v in empty vouch; do
  : > "$work/create-$v"; : > "$work/delete-$v"
  git -C "$work/c-$v" rev-parse HEAD > "$work/head-$v"
done
for _ in $(seq "$rounds"); do
  for v in empty vouch; do
    c="$work/c-$v"
    head=$(cat "$work/head-$v")
    for i in $(seq "$refs"); do echo "create refs/heads/b$i $head"; done | git -C "$c" update-ref --stdin
    t0=$(now)
    git -C "$c" push -q origin 'refs/heads/b*:refs/heads/b*'
    t1=$(now)
    echo $(( t1 - t0 )) >> "$work/create-$v"
    t0=$(now)
    git -C "$c" push -q origin $(for i in $(seq "$refs"); do printf ':refs/heads/b%s ' "$i"; done)
    t1=$(now)
    echo $(( t1 - t0 )) >> "$work/delete-$v"
    for i in $(seq "$refs"); do echo "delete refs/heads/b$i"; done | git -C "$c" update-ref --stdin
  done
done
echo "2. $refs refs in one push over smart HTTP (median of $rounds pushes each)"
for what in create delete; do
  e=$(median < "$work/$what-empty"); v=$(median < "$work/$what-vouch")
  printf '   %-7s %d branches: empty pre-receive %8s ms, vouch %8s ms (x%s)\n' "$what" "$refs" "$(ms "$e")" "$(ms "$v")" "$(ratio "$v" "$e")"
done
echo "   the deletions' audit line: $(grep '"hook":"pre-receive"' "$XDG_STATE_HOME/vouch/audit.jsonl" | tail -1 | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(r["risk_tier"], r["result"], r["decision"], len(r["refs"]), "refs,", r["latency_ms"], "ms inside vouch")')"

# The hook alone, as git runs it, deciding the deletions of $refs refs.
head=$(git -C "$srv/vouch.git" rev-parse main)
for i in $(seq "$refs"); do echo "create refs/heads/d$i $head"; done | git -C "$srv/vouch.git" update-ref --stdin
zero=0000000000000000000000000000000000000000
for i in $(seq "$refs"); do echo "$head $zero refs/heads/d$i"; done > "$work/delete-lines"
times=()
for _ in $(seq "$rounds"); do
  t0=$(now)
  (cd "$srv/vouch.git" && GIT_DIR=. "$vouch" hook pre-receive < "$work/delete-lines" >/dev/null 2>&1) || true
  t1=$(now)
  times+=($(( t1 - t0 )))
done
h=$(printf '%s\n' "${times[@]}" | median)
echo "   the pre-receive hook alone on $refs deletions: $(ms "$h") ms (median of $rounds; target: <= 1000 ms)"
