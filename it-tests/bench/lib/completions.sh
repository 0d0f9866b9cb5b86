# Shared by the overhead benchmarks (gateway-overhead.sh, gateway-cpu-ab.sh, decision-quality-overhead.sh,
# one-connection-split.sh, one-connection-floor.sh): the one request they all send, as a wrk script, the wait until a
# target answers it, wrk's p50 in milliseconds, and nginx as the reference proxy. Source this file; it defines
# functions only.

# post_lua FILE [PROMPT]: a wrk script that POSTs a one-token completion with PROMPT (default "hello") to FILE.
post_lua() {
  cat >"$1" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"meta-llama/Meta-Llama-3-8B-Instruct","prompt":"${2:-hello}","max_tokens":1}'
LUA
}

# await_completions PORT...: waits (up to two minutes each) until every port answers a completion.
await_completions() {
  local body='{"model":"meta-llama/Meta-Llama-3-8B-Instruct","prompt":"hello","max_tokens":1}' port
  for port in "$@"; do
    for _ in $(seq 1 240); do
      curl -sf -o /dev/null -H 'Content-Type: application/json' -d "$body" "http://127.0.0.1:$port/v1/completions" \
        && break
      sleep 0.5
    done
  done
}

# wrk_p50_ms: reads `wrk --latency` output on stdin and prints its p50 in milliseconds.
wrk_p50_ms() {
  awk '/ 50%/ {v = $2; if (v ~ /us$/) {sub(/us/, "", v); v /= 1000} else if (v ~ /ms$/) sub(/ms/, "", v);
    else {sub(/s/, "", v); v *= 1000}; print v}'
}

# start_nginx WORK_DIR PORT UPSTREAM_PORT: nginx as a reverse proxy on 127.0.0.1:PORT to one upstream (worker_processes
# auto, an HTTP/1.1 keep-alive pool of 64, proxy_buffering off), its pid in WORK_DIR/nginx.pid.
start_nginx() {
  cat >"$1/nginx.conf" <<NGINX
worker_processes auto;
pid $1/nginx.pid;
error_log $1/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  upstream sim { server 127.0.0.1:$3; keepalive 64; }
  server {
    listen 127.0.0.1:$2;
    location / { proxy_pass http://sim; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }
  }
}
NGINX
  nginx -c "$1/nginx.conf"
}
