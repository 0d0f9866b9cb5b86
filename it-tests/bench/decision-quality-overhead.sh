#!/usr/bin/env bash
# What --decision-quality and --shadow-policies cost a request: the same small
# completion through three Caravan gateways in front of one simulated engine that answers at once, measured with wrk
# in interleaved rounds (a noisy neighbour hits all three alike); medians over the rounds.
# Targets: caravan (defaults: both off), caravan-dq (--decision-quality), caravan-dq-shadows (--decision-quality
# --shadow-policies round_robin,kv_aware). The policy is the default cache_aware, so "held" comes from its tree.
# Needs: app/target/caravan.jar (mvn -B -q -DskipTests package), wrk.
# Usage: it-tests/bench/decision-quality-overhead.sh [ROUNDS] [SECONDS] [CONNECTIONS...]   (defaults 3 10 1 16)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
. "$here/it-tests/bench/lib/completions.sh"
rounds=${1:-3}
secs=${2:-10}
shift $(( $# > 2 ? 2 : $# )) || true
conns=("$@")
[ ${#conns[@]} -eq 0 ] && conns=(1 16)
command -v wrk >/dev/null || { echo "missing: wrk" >&2; exit 2; }
work="$(mktemp -d)"
cp "$here/app/target/caravan.jar" "$work/caravan.jar"
jar="$work/caravan.jar"
base=${OVERHEAD_PORT_BASE:-18200}
sim_port=$((base + 1))
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

java -jar "$jar" sim --port $sim_port --time-scale 1000 --default-max-tokens 1 >"$work/sim.log" 2>&1 & pids+=($!)
names=(caravan caravan-dq caravan-dq-shadows)
extra=("" "--decision-quality" "--decision-quality --shadow-policies round_robin,kv_aware")
ports=()
for i in 0 1 2; do
  port=$((base + 2 + i)); ports+=($port)
  # shellcheck disable=SC2086
  java ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --host 127.0.0.1 --port $port --log-level warn --prometheus-port -1 \
    --worker-urls http://127.0.0.1:$sim_port ${extra[$i]} >"$work/gw-$i.log" 2>&1 & pids+=($!)
done
post_lua "$work/post.lua" "You are a helpful assistant. Answer briefly: hello"
await_completions "${ports[@]}"
for port in "${ports[@]}"; do
  wrk -t2 -c16 -d20s -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions" >/dev/null   # JIT warm-up
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A rps p50
for c in "${conns[@]}"; do
  threads=$(( c < 2 ? 1 : 2 ))
  for r in $(seq 1 "$rounds"); do
    for i in 0 1 2; do
      out=$(wrk -t"$threads" -c"$c" -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:${ports[$i]}/v1/completions")
      rps[$c,$i]+="$(awk '/Requests\/sec/ {print $2}' <<<"$out") "
      p50[$c,$i]+="$(awk '$1=="50%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else {sub(/s$/,"",v); v*=1000}; print v}' <<<"$out") "
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| connections | target | req/s (median) | p50 ms (median) | req/s vs caravan |"
echo "|---|---|---:|---:|---:|"
for c in "${conns[@]}"; do
  ref=$(median <<<"${rps[$c,0]}")
  for i in 0 1 2; do
    m=$(median <<<"${rps[$c,$i]}")
    echo "| $c | ${names[$i]} | $m | $(median <<<"${p50[$c,$i]}") | $(awk -v a="$m" -v b="$ref" 'BEGIN {printf "%.2f", a/b}') |"
  done
done
