#!/usr/bin/env bash
# Where a request's time goes at one connection: one gateway (sync off) in front of one simulated engine, loaded by one
# connection, with the Vert.x event loops' user and system CPU time per request (from /proc, the loops' threads only),
# the process's minor page faults per request, and the p50 added to the engine's own (measured direct, same run). At
# one connection nothing overlaps: a request's added latency is the loop's work on it plus two wake-ups, so the split
# says whether the gateway's Java code or the kernel around it is what to cut. Each configuration runs a fresh gateway
# with its JVM options; the engine is shared.
#
# Needs: wrk. Usage: it-tests/bench/one-connection-split.sh SECONDS [NAME=JVM_OPTIONS ...]
#   e.g. it-tests/bench/one-connection-split.sh 20 default= small-young=-Xmn32m
# Environment: SPLIT_WARMUP (seconds of 16-connection load per gateway first, default 40), SPLIT_PORT_BASE (18700).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:?usage: one-connection-split.sh SECONDS [NAME=JVM_OPTIONS ...]}; shift
(( $# )) || set -- default=
command -v wrk >/dev/null || { echo "missing: wrk" >&2; exit 2; }
. it-tests/bench/lib/completions.sh
work="$(mktemp -d)"; base=${SPLIT_PORT_BASE:-18700}; sim_port=$((base + 1)); port=$((base + 1)); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
cp app/target/caravan.jar "$work/caravan.jar" # a copy: rebuilding under a running JVM breaks its lazy class loading
post_lua "$work/post.lua"
java -jar "$work/caravan.jar" sim --port $sim_port --time-scale 1000 --default-max-tokens 1 >"$work/sim.log" 2>&1 &
pids+=($!)
await_completions $sim_port
hz=$(getconf CLK_TCK)
loops() { # user and system ticks of the event loops' threads, then the process's minor faults
  local u=0 s=0 t a b
  for t in /proc/"$1"/task/*; do
    grep -q '^vert.x-eventloo' "$t/comm" 2>/dev/null || continue
    read -r a b < <(sed 's/.*) //' "$t/stat" | awk '{print $12, $13}'); u=$((u + a)); s=$((s + b))
  done
  echo "$u $s $(sed 's/.*) //' "/proc/$1/stat" | awk '{print $8}')"
}
wrk -t1 -c1 -d"${SPLIT_WARMUP:-40}s" -s "$work/post.lua" "http://127.0.0.1:$sim_port/v1/completions" >/dev/null
direct=$(wrk -t1 -c1 -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:$sim_port/v1/completions" | wrk_p50_ms)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); direct p50 ${direct} ms" >&2
echo "| configuration | JVM options | requests | p50 ms | added p50 ms | event loops user µs/request | system µs/request | minor faults/request |"
echo "|---|---|---|---|---|---|---|---|"
for spec in "$@"; do
  name=${spec%%=*}; opts=${spec#*=}; port=$((port + 1))
  # shellcheck disable=SC2086 # the options are words
  java $opts -jar "$work/caravan.jar" run --host 127.0.0.1 --port $port --log-level warn --prometheus-port -1 \
    --worker-urls http://127.0.0.1:$sim_port >"$work/$name.log" 2>&1 &
  gw=$!; pids+=($gw)
  await_completions $port
  wrk -t2 -c16 -d"${SPLIT_WARMUP:-40}s" -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions" >/dev/null
  read -r u0 s0 f0 < <(loops $gw)
  out=$(wrk -t1 -c1 -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions")
  read -r u1 s1 f1 < <(loops $gw)
  n=$(awk '/requests in/{print $1}' <<<"$out"); p=$(wrk_p50_ms <<<"$out")
  awk -v name="$name" -v opts="${opts:-(none)}" -v n="$n" -v p="$p" -v d="$direct" -v hz="$hz" \
    -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v f=$((f1 - f0)) \
    'BEGIN { printf "| %s | `%s` | %d | %.3f | %+.3f | %.0f | %.0f | %.2f |\n", name, opts, n, p, p - d, u * 1e6 / hz / n, s * 1e6 / hz / n, f / n }'
  kill $gw; wait $gw 2>/dev/null || true
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
