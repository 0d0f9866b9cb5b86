#!/usr/bin/env bash
# Gateway overhead benchmark (docs/performance.md, "Proxy overhead against nginx"): requests/second and latency of the
# same small request sent directly to a simulated engine, through Caravan, and through nginx as a reverse proxy, on this
# machine, in one run. Rounds are interleaved so a noisy neighbour hits all three alike; the table reports medians.
#
# Needs: the built jars (./caravan builds them), wrk and nginx on the PATH (apt-get install -y nginx wrk).
# Usage: it-tests/bench/gateway-overhead.sh [ROUNDS] [SECONDS] [CONNECTIONS...]
#        defaults: 3 rounds, 10 s per measurement, connections 1 and 16.
# Targets: the engine directly; nginx (worker_processes auto, keepalive upstream); Caravan with its defaults (event-loop
# dispatch, one event loop per core); Caravan on stock Camel (--camel-tuning false, docs/design/camel-tuning.md);
# Caravan with --dispatch worker; Caravan with replica sync on (caravan-sync: two
# replicas in one Hazelcast cluster on loopback, static member list, requests sent to one of them; the table's last
# column compares it with the sync-off Caravan).
# Every gateway runs with --prometheus-port -1 (several on one machine; /metrics stays on --port).
# Each measurement also reads the CPU time (user + system, /proc) the target's own processes spent, per request: the
# engine for direct, the gateway for Caravan, nginx's master and workers for nginx.
# Each target is first warmed up for OVERHEAD_WARMUP seconds (default 60) of wrk -c16: on a slow machine the gateway's
# JIT compilers are still busy after 20 s (C2 threads at a quarter of a core), which a measurement taken then charges
# to the gateway's CPU and latency; nginx and the engine have no JIT to wait for.
# OVERHEAD_SYNC=off leaves out the two sync replicas (caravan-sync), e.g. on a machine too loaded for Hazelcast's
# members to find each other in time.
# CARAVAN_GATEWAY_JAVA: the java launcher the gateways run on (default: java on the PATH, which the engine always
# uses), e.g. a newer JDK's bin/java; CARAVAN_JAVA_OPTS: the gateways' JVM options.
# RESULTS: the results-page section file the medians are written to (default docs/bench/results/proxy-overhead.json;
# RESULTS=none writes none).
set -euo pipefail
load_start=$(cut -d' ' -f1 /proc/loadavg)
args="$*"
here="$(cd "$(dirname "$0")/../.." && pwd)"
. "$here/it-tests/bench/lib/completions.sh"
. "$here/it-tests/bench/lib/sync-pair.sh"
rounds=${1:-3}
secs=${2:-10}
shift $(( $# > 2 ? 2 : $# )) || true
conns=("$@")
[ ${#conns[@]} -eq 0 ] && conns=(1 16)
for tool in wrk nginx java; do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }; done
jar="$here/app/target/caravan.jar"
[ -f "$jar" ] || (cd "$here" && mvn -B -q -DskipTests package)

work="$(mktemp -d)"
# run from a copy: rebuilding the jar under a running JVM breaks its lazy class loading
cp "$jar" "$work/caravan.jar"
jar="$work/caravan.jar"
# ports: OVERHEAD_PORT_BASE+1.. (default 18100; set another base when something else uses these)
base=${OVERHEAD_PORT_BASE:-18100}
sim_port=$((base + 1)); gw_port=$((base + 2)); nginx_port=$((base + 3)); gw_w_port=$((base + 4))
gw_s_port=$((base + 5)); gw_s2_port=$((base + 6)); gw_st_port=$((base + 7)); sync_port=$((base + 11)); sync2_port=$((base + 12))
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# An engine that answers at once: 1 output token, virtual time 1000x faster than wall time.
java -jar "$jar" sim --port $sim_port --time-scale 1000 --default-max-tokens 1 >"$work/sim.log" 2>&1 & pids+=($!)
sim_pid=${pids[-1]}
"${CARAVAN_GATEWAY_JAVA:-java}" ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --host 127.0.0.1 --port $gw_port --log-level warn --prometheus-port -1 \
  --worker-urls http://127.0.0.1:$sim_port >"$work/gw.log" 2>&1 & pids+=($!); gw_pid=$!
"${CARAVAN_GATEWAY_JAVA:-java}" ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --host 127.0.0.1 --port $gw_st_port --log-level warn --prometheus-port -1 \
  --camel-tuning false --worker-urls http://127.0.0.1:$sim_port >"$work/gw-stock.log" 2>&1 & pids+=($!); gw_st_pid=$!
"${CARAVAN_GATEWAY_JAVA:-java}" ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --host 127.0.0.1 --port $gw_w_port --log-level warn --prometheus-port -1 \
  --dispatch worker --worker-urls http://127.0.0.1:$sim_port >"$work/gw-worker.log" 2>&1 & pids+=($!); gw_w_pid=$!
sync=${OVERHEAD_SYNC:-on}
if [ "$sync" = on ]; then
  start_sync_pair "$work" "$jar" "http://127.0.0.1:$sim_port" $gw_s_port $gw_s2_port $sync_port $sync2_port
  gw_s_pid=$sync_pid
fi
start_nginx "$work" $nginx_port $sim_port

post_lua "$work/post.lua"
ports=($sim_port $gw_port $gw_st_port $gw_w_port $nginx_port)
[ "$sync" = on ] && ports+=($gw_s_port $gw_s2_port)
await_completions "${ports[@]}"

nginx_pids="$(cat "$work/nginx.pid"),$(pgrep -P "$(cat "$work/nginx.pid")" | paste -sd,)"
targets=("direct:$sim_port:$sim_pid" "caravan:$gw_port:$gw_pid" "caravan-stock-camel:$gw_st_port:$gw_st_pid"
  "caravan-worker-dispatch:$gw_w_port:$gw_w_pid"
  "nginx:$nginx_port:$nginx_pids")
if [ "$sync" = on ]; then # both sync members in one cluster before measuring
  await_sync_pair $gw_s_port || { echo "(OVERHEAD_SYNC=off measures without it)" >&2; exit 1; }
  targets+=("caravan-sync:$gw_s_port:$gw_s_pid")
fi
# CPU ticks (user + system) of a comma-separated list of processes
cpu_ticks() {
  local sum=0 p
  for p in ${1//,/ }; do sum=$((sum + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}'))); done
  echo "$sum"
}
ticks_per_s=$(getconf CLK_TCK)
echo "warming up (JIT) ..." >&2
for t in "${targets[@]}"; do
  IFS=: read -r _ port _ <<<"$t"
  wrk -t2 -c16 -d"${OVERHEAD_WARMUP:-60}s" -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions" >/dev/null
done

results="$work/results.txt"
for c in "${conns[@]}"; do
  for r in $(seq 1 "$rounds"); do
    for t in "${targets[@]}"; do
      IFS=: read -r name port tpids <<<"$t"
      threads=$(( c < 2 ? 1 : 2 ))
      cpu0=$(cpu_ticks "$tpids")
      out=$(wrk -t"$threads" -c"$c" -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions")
      cpu1=$(cpu_ticks "$tpids")
      rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      n=$(echo "$out" | awk '/requests in/ {print $1}')
      p50=$(echo "$out" | awk '$1=="50%" {print $2}')
      p99=$(echo "$out" | awk '$1=="99%" {print $2}')
      cpu_us=$(awk -v d=$((cpu1 - cpu0)) -v n="$n" -v hz="$ticks_per_s" 'BEGIN {printf "%.1f", d * 1e6 / hz / n}')
      echo "$name $c $rps $p50 $p99 $cpu_us" >>"$results"
      echo "round $r c=$c $name: $rps req/s p50 $p50 p99 $p99 cpu ${cpu_us}us/req" >&2
    done
  done
done

python3 - "$results" "$here" "${RESULTS:-$here/docs/bench/results/proxy-overhead.json}" "$load_start" "$args" \
  "$(${CARAVAN_GATEWAY_JAVA:-java} -version 2>&1 | head -1)" <<'PY'
import sys, statistics, collections
sys.path.insert(0, sys.argv[2] + "/it-tests/bench/lib")
import results as page
def ms(v):
    return float(v[:-2]) if v.endswith("ms") else float(v[:-2]) / 1000 if v.endswith("us") else float(v[:-1]) * 1000
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, c, rps, p50, p99, cpu = line.split()
    rows[(int(c), t)].append((float(rps), ms(p50), ms(p99), float(cpu)))
print("| connections | target | req/s (median) | p50 ms | p99 ms | added p50 vs direct ms | req/s vs nginx "
      "| req/s vs caravan (sync off) | CPU µs per request |")
print("|---|---|---|---|---|---|---|---|---|")
for c in sorted({k[0] for k in rows}):
    med = {t: tuple(statistics.median(x[i] for x in v) for i in range(4)) for (cc, t), v in rows.items() if cc == c}
    for t in ("direct", "nginx", "caravan", "caravan-stock-camel", "caravan-worker-dispatch", "caravan-sync"):
        if t not in med:
            continue
        rps, p50, p99, cpu = med[t]
        added = p50 - med["direct"][1]
        ratio = rps / med["nginx"][0]
        vs_off = f"{rps / med['caravan'][0]:.2f}" if t.startswith("caravan") and "caravan" in med else ""
        print(f"| {c} | {t} | {rps:,.0f} | {p50:.3f} | {p99:.3f} | {added:+.3f} | {ratio:.2f} | {vs_off} "
              f"| {cpu:.0f} |")
if sys.argv[3] != "none":
    table = []
    for c in sorted({k[0] for k in rows}):
        med = {t: tuple(statistics.median(x[i] for x in v) for i in range(4)) for (cc, t), v in rows.items() if cc == c}
        for t in ("direct", "nginx", "caravan", "caravan-stock-camel", "caravan-worker-dispatch", "caravan-sync"):
            if t in med:
                rps, p50, p99, cpu = med[t]
                table.append({"connections": c, "target": t, "rps": rps, "p50_ms": p50, "p99_ms": p99,
                              "added_p50_ms": p50 - med["direct"][1], "vs_nginx": rps / med["nginx"][0],
                              "rounds_vs_nginx": ", ".join(f"{a[0] / b[0]:.2f}" for a, b in
                                                           zip(rows[(c, t)], rows[(c, "nginx")])),
                              "cpu_us": cpu})
    C = page.column
    page.write(sys.argv[3], sys.argv[2],
               "mvn -B -q -DskipTests package\nit-tests/bench/gateway-overhead.sh 3 10 1 16     "
               "# rounds, seconds per measurement, connection counts",
               ("it-tests/bench/gateway-overhead.sh " + sys.argv[5]).strip(), sys.argv[4],
               [C("connections", "connections", "%.0f"), C("target", "target"), C("req/s (median)", "rps", "%,.0f"),
                C("p50 / p99 ms", ["p50_ms", "p99_ms"], "%.3f / %.3f"),
                C("added p50 vs direct ms", "added_p50_ms", "%+.3f"),
                C("req/s × nginx (rounds)", ["vs_nginx", "rounds_vs_nginx"], "%.2f (%s)"),
                C("CPU µs per request", "cpu_us", "%.1f")],
               table, machine=f"{page.os.cpu_count()} cores, {sys.argv[6]}")
    print(f"wrote {sys.argv[3]}", file=sys.stderr)
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
