# Shared by the overhead benchmarks (gateway-overhead.sh, gateway-cpu-ab.sh, decision-quality-overhead.sh): the one
# request they all send, as a wrk script, and the wait until a target answers it. Source this file; it defines
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
