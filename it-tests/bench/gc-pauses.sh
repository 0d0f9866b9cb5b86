#!/usr/bin/env bash
# GC pauses of the gateway with a large, churning cache_aware tree, one JVM
# configuration after another in one run: for each, a fresh gateway in front of eight simulated engines receives
# unique long prompts at a steady rate for SECONDS, so its tree grows to its default budget (--max-tree-size, 2^26
# characters per worker) and is then cut back every --eviction-interval (60 s) while new text keeps arriving: a heap of
# several hundred MB of long-lived nodes that keep turning into garbage, which is what decides how long a collector
# stops the gateway (and every stream it relays). Reports, per configuration, the pauses from the JVM's GC log (count,
# p50, p99, longest, total per minute, how many were full collections), the request latencies wrk saw (p50, p99,
# longest), the old generation in use at the end, and the gateway's CPU per request.
#
# Needs: the built jars (./caravan builds them), wrk. Usage:
#   it-tests/bench/gc-pauses.sh [SECONDS] [RATE] [PROMPT_KB] [NAME=JVM_OPTIONS ...]
#   defaults: 300 s, 400 requests/s, 16 kB prompts, g1= (the JVM's default) and parallel=-XX:+UseParallelGC
#   e.g. it-tests/bench/gc-pauses.sh 300 400 16 g1= parallel=-XX:+UseParallelGC g1-1g=-Xmx1g par-1g="-XX:+UseParallelGC -Xmx1g"
# Ports: GC_PORT_BASE+1.. (default 18700).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
secs=${1:-300}
rate=${2:-400}
kb=${3:-16}
shift $(( $# > 3 ? 3 : $# )) || true
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=("g1=" "parallel=-XX:+UseParallelGC")
command -v wrk >/dev/null || { echo "missing: wrk" >&2; exit 2; }
jar="$here/app/target/caravan.jar"
[ -f "$jar" ] || (cd "$here" && mvn -B -q -DskipTests package)
work="$(mktemp -d)"
cp "$jar" "$work/caravan.jar"; jar="$work/caravan.jar"
base=${GC_PORT_BASE:-18700}; sim_port=$((base + 1)); gw_port=$((base + 20))
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
. "$here/it-tests/bench/lib/completions.sh"

java -jar "$jar" sim --port $sim_port --count 8 --time-scale 1000 --default-max-tokens 1 --max-model-len 1000000 \
  >"$work/sim.log" 2>&1 & pids+=($!)
urls=(); for i in $(seq 0 7); do urls+=("http://127.0.0.1:$((sim_port + i))"); done
# 16 connections, each waiting 16000/RATE ms between its requests; every prompt unique from its first characters
cat >"$work/unique.lua" <<LUA
local filler = string.rep("the quick brown fox jumps over the lazy dog ", math.floor($kb * 1024 / 44))
local n = 0
local id = 0
local ids = 0
setup = function(thread) ids = ids + 1; thread:set("id", ids) end
init = function() id = wrk.thread:get("id") end
delay = function() return math.floor(16000 / $rate) end
request = function()
  n = n + 1
  local body = '{"model":"m","prompt":"' .. id .. '-' .. n .. '-' .. math.random(1e9) .. ' ' .. filler .. '","max_tokens":1}'
  return wrk.format("POST", "/v1/completions", {["Content-Type"] = "application/json"}, body)
end
LUA
ms() { awk -v v="$1" 'BEGIN { if (v ~ /ms$/) print v + 0; else if (v ~ /us$/) print v / 1000; else print v * 1000 }'; }
echo "| configuration | JVM options | requests/s | pauses | pause p50 ms | p99 ms | longest ms | paused ms per minute | full collections | request p50 ms | p99 ms | longest ms | old generation in use at the end MB | CPU µs/request |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for spec in "${configs[@]}"; do
  name=${spec%%=*}; opts=${spec#*=}
  log="$work/gc-$name.log"
  java $opts -Xlog:gc:file="$log" -jar "$jar" run --host 127.0.0.1 --port $gw_port --log-level warn \
    --prometheus-port -1 --worker-urls "${urls[@]}" >"$work/gw-$name.log" 2>&1 & gw=$!; pids+=($gw)
  await_completions $gw_port
  c0=$(sed 's/.*) //' "/proc/$gw/stat" | awk '{print $12 + $13}')
  out=$(wrk -t2 -c16 -d"${secs}s" --latency -s "$work/unique.lua" "http://127.0.0.1:$gw_port/v1/completions")
  c1=$(sed 's/.*) //' "/proc/$gw/stat" | awk '{print $12 + $13}')
  # the old generation in use (G1 Old Gen, PS Old Gen): the long-lived tree and what has not been collected of it yet
  heap=$(curl -s "http://127.0.0.1:$gw_port/metrics" | awk '/^jvm_memory_used_bytes\{.*Old Gen/ {s += $NF} END {printf "%.0f", s / 1e6}')
  kill "$gw"; wait "$gw" 2>/dev/null || true
  n=$(echo "$out" | awk '/requests in/ {print $1}'); rps=$(echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')
  p50=$(ms "$(echo "$out" | awk '$1=="50%" {print $2}')"); p99=$(ms "$(echo "$out" | awk '$1=="99%" {print $2}')")
  longest=$(ms "$(echo "$out" | awk '/Latency/ && !/Distribution/ {print $4; exit}')")
  cpu=$(awk -v d=$((c1 - c0)) -v n="$n" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.0f", d * 1e6 / hz / n}')
  python3 - "$log" "$secs" "$name" "$opts" "$rps" "$p50" "$p99" "$longest" "$heap" "$cpu" <<'PY'
import re, sys, statistics
log, secs, name, opts, rps, p50, p99, longest, heap, cpu = sys.argv[1:]
pauses, full = [], 0
for line in open(log):
    m = re.search(r"Pause (\S+).* ([\d.]+)ms$", line)
    if m:
        pauses.append(float(m.group(2)))
        full += m.group(1) == "Full"
pauses.sort()
pause_p99 = pauses[min(len(pauses) - 1, int(0.99 * len(pauses)))]  # nearest rank
print(f"| {name} | `{opts or '(none)'}` | {rps} | {len(pauses)} | {statistics.median(pauses):.1f} | {pause_p99:.1f} "
      f"| {max(pauses):.1f} | {sum(pauses) / (float(secs) / 60):.0f} | {full} | {float(p50):.2f} | {float(p99):.1f} "
      f"| {float(longest):.0f} | {heap} | {cpu} |")
PY
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
