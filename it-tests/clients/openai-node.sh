#!/usr/bin/env bash
# A real client end to end: the official OpenAI Node SDK (npm `openai` 6.x) against the gateway (cache_aware) in front
# of two simulated vLLM engines, all on 127.0.0.1: models, chat and completions whole and streamed token by token,
# embeddings, the Responses API, the SDK's error classes, an aborted stream freeing its engine, 20 concurrent streams
# (the checks: openai-node/check.mjs; docs/design/testing.md, "Real clients").
#
# With --pd the engines are a prefill engine (with a KV bootstrap port) and a decode engine behind
# --pd-disaggregation, SGLang's protocol: the same checks, decisions naming both legs, and embeddings and the
# Responses API 503 (they need a regular worker).
#
# With --frameworks the clients are two frameworks built on OpenAI's API instead, against the same regular engines:
# the Vercel AI SDK (`ai` 6.x with `@ai-sdk/openai` 3.x) and LangChain.js (`@langchain/openai` 1.x), chat, completions
# and the Responses API whole and streamed, errors and embeddings (openai-node/frameworks.mjs).
#
# Needs: the built jar (mvn -B -q -DskipTests package), node >= 18 and npm with the npm registry reachable. Not part
# of `mvn -B verify`, which needs neither.
# Usage: it-tests/clients/openai-node.sh [--pd] [SDK_VERSION]   (default 6: the newest 6.x)
#        it-tests/clients/openai-node.sh --frameworks
set -euo pipefail
mode=regular
case "${1:-}" in --pd) mode=pd; shift ;; --frameworks) mode=frameworks; shift ;; esac
here="$(cd "$(dirname "$0")/../.." && pwd)"
for tool in java node npm curl python3; do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }; done
jar="$here/app/target/caravan.jar"
[ -f "$jar" ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 2; }
model=meta-llama/Meta-Llama-3-8B-Instruct
work="$(mktemp -d)"; pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
read -r e1 e2 gw bootstrap < <(python3 -c 'import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cp "$jar" "$work/caravan.jar" # a copy: rebuilding the jar under a running JVM breaks its lazy class loading
sim() { # PORT [FLAG...]: one simulated engine decoding a token every 25 ms, so that a buffered stream would show
  local port=$1; shift
  java -jar "$work/caravan.jar" sim --port "$port" --model "$model" --decode-ms-per-token 25 "$@" \
    >"$work/sim-$port.log" 2>&1 &
  pids+=($!)
}
if [ "$mode" = pd ]; then
  sim "$e1" --role prefill --bootstrap-port "$bootstrap"
  sim "$e2" --role decode
  workers=(--pd-disaggregation --prefill "http://127.0.0.1:$e1" "$bootstrap" --decode "http://127.0.0.1:$e2")
else
  sim "$e1" --engine-api vllm
  sim "$e2" --engine-api vllm
  workers=(--worker-urls "http://127.0.0.1:$e1" "http://127.0.0.1:$e2")
fi
java -jar "$work/caravan.jar" run --host 127.0.0.1 --port "$gw" --prometheus-port -1 --log-level warn \
  --policy cache_aware "${workers[@]}" >"$work/gateway.log" 2>&1 &
pids+=($!)
if [ "$mode" = frameworks ]; then packages=(ai@6 @ai-sdk/openai@3 @langchain/openai@1); checks=frameworks.mjs
else packages=("openai@${1:-6}"); checks=check.mjs; fi
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "${packages[@]}" >/dev/null)
cp "$here/it-tests/clients/openai-node/$checks" "$here/it-tests/clients/openai-node/run-checks.mjs" "$work/"
for _ in $(seq 1 120); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gw/readiness")" = 200 ] && break
  sleep 0.5
done
node "$work/$checks" "http://127.0.0.1:$gw" "$model" "$mode" || { echo "--- gateway log" >&2; tail -40 "$work/gateway.log" >&2; exit 1; }
