#!/usr/bin/env bash
# A real client end to end: the official OpenAI Node SDK (npm `openai` 6.x) against the gateway (cache_aware) in front
# of two simulated vLLM engines, all on 127.0.0.1: models, chat and completions whole and streamed token by token,
# embeddings, the Responses API, the SDK's error classes, an aborted stream freeing its engine, 20 concurrent streams
# (the checks: openai-node/check.mjs; docs/design/testing.md, "A real client").
#
# Needs: the built jar (mvn -B -q -DskipTests package), node >= 18 and npm with the npm registry reachable. Not part
# of `mvn -B verify`, which needs neither.
# Usage: it-tests/clients/openai-node.sh [SDK_VERSION]   (default 6: the newest 6.x)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
for tool in java node npm curl python3; do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }; done
jar="$here/app/target/caravan.jar"
[ -f "$jar" ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 2; }
model=meta-llama/Meta-Llama-3-8B-Instruct
work="$(mktemp -d)"; pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
read -r e1 e2 gw < <(python3 -c 'import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cp "$jar" "$work/caravan.jar" # a copy: rebuilding the jar under a running JVM breaks its lazy class loading
for port in $e1 $e2; do
  # a token every 25 ms, so that a buffered stream would show
  java -jar "$work/caravan.jar" sim --port "$port" --engine-api vllm --model "$model" --decode-ms-per-token 25 \
    >"$work/sim-$port.log" 2>&1 &
  pids+=($!)
done
java -jar "$work/caravan.jar" run --host 127.0.0.1 --port "$gw" --prometheus-port -1 --log-level warn \
  --policy cache_aware --worker-urls "http://127.0.0.1:$e1" "http://127.0.0.1:$e2" >"$work/gateway.log" 2>&1 &
pids+=($!)
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "openai@${1:-6}" >/dev/null)
cp "$here/it-tests/clients/openai-node/check.mjs" "$work/check.mjs"
for _ in $(seq 1 120); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gw/readiness")" = 200 ] && break
  sleep 0.5
done
node "$work/check.mjs" "http://127.0.0.1:$gw" "$model" || { echo "--- gateway log" >&2; tail -40 "$work/gateway.log" >&2; exit 1; }
