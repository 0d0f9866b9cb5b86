#!/usr/bin/env bash
# SSE relay benchmark (docs/performance.md, "SSE relay"): how many token events per second a proxy relays, at what CPU
# cost, and how much latency it adds to each event, with STREAMS streams open at once. Targets, in one run on this
# machine: the origin directly, nginx (proxy_buffering off, keep-alive upstream) and Caravan with its defaults.
#
# The origin (dev.caravan.bench.sse.SseOrigin) answers every chat-completion request with an OpenAI-shaped SSE stream
# of TOKENS events, one every INTERVAL_MS, each stamped with the nanoTime it was written at; the load client
# (dev.caravan.bench.sse.SseClient) keeps STREAMS streams open through the target (a new one starts when one ends) and
# reads each event's one-way latency (CLOCK_MONOTONIC is shared by the machine's processes). Real sockets on
# 127.0.0.1 throughout. Rounds are interleaved and the table reports medians; "added" is the target's latency
# percentile minus the direct one's. caravan-sync is Caravan with replica sync on: two replicas in one Hazelcast
# cluster on loopback, the streams sent to the first (SSE_SYNC=off leaves it out).
#
# Needs: the built jars (mvn -B -q -DskipTests package), nginx on the PATH (apt-get install -y nginx).
# Usage: it-tests/bench/sse-relay.sh [ROUNDS] [SECONDS] [STREAMS] [INTERVAL_MS] [TOKENS]
#        defaults: 3 rounds, 20 s measured (after 12 s of warm-up) per target, 1000 streams, 50 ms (20 tokens/s per
#        stream), 200 tokens per stream (10 s).
# CARAVAN_GATEWAY_JAVA: the java launcher the gateways run on (default: java on the PATH, which the origin and the
# clients always use); CARAVAN_JAVA_OPTS: the gateways' JVM options.
# RESULTS: the results-page section file the medians are written to (default docs/bench/results/sse-relay.json;
# RESULTS=none writes none). SSE_NGINX=off leaves nginx out (sse-streams.sh, past its connection limit).
set -euo pipefail
load_start=$(cut -d' ' -f1 /proc/loadavg)
here="$(cd "$(dirname "$0")/../.." && pwd)"
. "$here/it-tests/bench/lib/sync-pair.sh"
rounds=${1:-3}
secs=${2:-20}
streams=${3:-1000}
interval=${4:-50}
tokens=${5:-200}
warmup=${SSE_WARMUP_SECS:-12}
for tool in nginx java curl python3; do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }; done
jar="$here/app/target/caravan.jar"
bench="$here/bench/target/caravan-bench.jar"
[ -f "$jar" ] && [ -f "$bench" ] || (cd "$here" && mvn -B -q -DskipTests package)

work="$(mktemp -d)"
# run from copies: rebuilding a jar under a running JVM breaks its lazy class loading
cp "$jar" "$work/caravan.jar"; cp "$bench" "$work/bench.jar"
jar="$work/caravan.jar"; bench="$work/bench.jar"
# ports: SSE_PORT_BASE+1.. (default 18300)
base=${SSE_PORT_BASE:-18300}
origin_port=$((base + 1)); gw_port=$((base + 2)); nginx_port=$((base + 3))
gw_s_port=$((base + 4)); gw_s2_port=$((base + 5)); sync_port=$((base + 11)); sync2_port=$((base + 12))
sync=${SSE_SYNC:-on}
with_nginx=${SSE_NGINX:-on}
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

java -cp "$bench" dev.caravan.bench.sse.SseOrigin $origin_port "$tokens" "$interval" >"$work/origin.log" 2>&1 & pids+=($!)
"${CARAVAN_GATEWAY_JAVA:-java}" ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --host 127.0.0.1 --port $gw_port --log-level warn --prometheus-port -1 \
  --worker-urls http://127.0.0.1:$origin_port >"$work/gw.log" 2>&1 & gw_pid=$!; pids+=($gw_pid)
if [ "$sync" = on ]; then
  start_sync_pair "$work" "$jar" "http://127.0.0.1:$origin_port" $gw_s_port $gw_s2_port $sync_port $sync2_port
  gw_s_pid=$sync_pid
fi
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
worker_rlimit_nofile 65536;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  upstream origin { server 127.0.0.1:$origin_port; keepalive 1024; }
  server {
    listen 127.0.0.1:$nginx_port;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }
  }
}
NGINX
[ "$with_nginx" = on ] && nginx -c "$work/nginx.conf"

body='{"model":"bench-model","stream":true,"messages":[{"role":"user","content":"hi"}]}'
ports=($origin_port $gw_port)
[ "$with_nginx" = on ] && ports+=($nginx_port)
[ "$sync" = on ] && ports+=($gw_s_port $gw_s2_port)
for port in "${ports[@]}"; do  # each answers one whole stream (its events x interval) before the run starts
  for _ in $(seq 1 90); do
    curl -sf -o /dev/null -m $((interval * tokens / 1000 + 30)) -H 'Content-Type: application/json' -d "$body" \
      "http://127.0.0.1:$port/v1/chat/completions" && break
    sleep 1
  done
done
targets=("direct:$origin_port:-")
if [ "$with_nginx" = on ]; then
  nginx_pids="$(cat "$work/nginx.pid"),$(pgrep -P "$(cat "$work/nginx.pid")" | paste -sd,)"
  targets+=("nginx:$nginx_port:$nginx_pids")
fi
targets+=("caravan:$gw_port:$gw_pid")
if [ "$sync" = on ]; then
  await_sync_pair $gw_s_port || { echo "(SSE_SYNC=off measures without it)" >&2; exit 1; }
  targets+=("caravan-sync:$gw_s_port:$gw_s_pid")
fi

results="$work/results.txt"
for r in $(seq 1 "$rounds"); do
  for t in "${targets[@]}"; do
    IFS=: read -r name port tpids <<<"$t"
    out=$(java -cp "$bench" dev.caravan.bench.sse.SseClient "http://127.0.0.1:$port/v1/chat/completions" \
      "$streams" "$warmup" "$secs" "$tpids")
    heap=""
    if [[ "$name" == caravan* ]]; then
      heap=$(curl -s "http://127.0.0.1:$port/metrics" \
        | awk '/^jvm_memory_used_bytes/ && /area="heap"/ {s += $NF} END {printf "heap_mb=%.0f", s / 1048576}')
    fi
    echo "$name $out $heap" >>"$results"
    echo "round $r $name: $out $heap" >&2
  done
done

python3 - "$results" "$streams" "$interval" "$tokens" "$here" "${RESULTS:-$here/docs/bench/results/sse-relay.json}" \
  "$load_start" "$*" "$(java -version 2>&1 | head -1)" <<'PY'
import sys, statistics, collections
sys.path.insert(0, sys.argv[5] + "/it-tests/bench/lib")
import results as page
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, *kv = line.split()
    rows[name].append({k: float(v) for k, v in (x.split("=") for x in kv)})
def med(name, key):
    vals = [r[key] for r in rows[name] if key in r]
    return statistics.median(vals) if vals else float("nan")
print(f"{int(sys.argv[2])} streams, one event every {sys.argv[3]} ms per stream, {sys.argv[4]} events per stream")
print("| target | events/s relayed | latency p50 ms | p99 ms | added p50 ms | added p99 ms | CPU ms per 1,000 events "
      "| stream errors | threads | RSS MB | heap used MB |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name in ("direct", "nginx", "caravan", "caravan-sync"):
    if name not in rows:
        continue
    p50, p99 = med(name, "lat_p50_ms"), med(name, "lat_p99_ms")
    added = "" if name == "direct" else f"{p50 - med('direct', 'lat_p50_ms'):+.3f}"
    added99 = "" if name == "direct" else f"{p99 - med('direct', 'lat_p99_ms'):+.3f}"
    cpu = "" if name == "direct" else f"{med(name, 'cpu_ms_per_1k_events'):.1f}"
    threads = "" if name == "direct" else f"{med(name, 'threads'):.0f}"
    rss = "" if name == "direct" else f"{med(name, 'rss_mb'):.0f}"
    heap = f"{med(name, 'heap_mb'):.0f}" if name.startswith("caravan") else ""
    errors = sum(r["stream_errors"] for r in rows[name])
    print(f"| {name} | {med(name, 'events_per_s'):,.0f} | {p50:.3f} | {p99:.3f} | {added} | {added99} | {cpu} "
          f"| {errors:.0f} | {threads} | {rss} | {heap} |")
if sys.argv[6] != "none":
    def num(name, key):
        v = med(name, key)
        return None if v != v else v
    table = []
    for name in ("direct", "nginx", "caravan", "caravan-sync"):
        if name not in rows:
            continue
        proxy = name != "direct"
        table.append({"target": name, "events_per_s": med(name, "events_per_s"),
                      "p50_ms": num(name, "lat_p50_ms"), "p99_ms": num(name, "lat_p99_ms"),
                      "added_p50_ms": num(name, "lat_p50_ms") - med("direct", "lat_p50_ms") if proxy else None,
                      "added_p99_ms": num(name, "lat_p99_ms") - med("direct", "lat_p99_ms") if proxy else None,
                      "cpu_ms_per_1000": num(name, "cpu_ms_per_1k_events") if proxy else None,
                      "errors": sum(r["stream_errors"] for r in rows[name]),
                      "threads": num(name, "threads") if proxy else None, "rss_mb": num(name, "rss_mb") if proxy else None,
                      "heap_mb": num(name, "heap_mb") if name.startswith("caravan") else None})
    C = page.column
    page.write(sys.argv[6], sys.argv[5],
               "mvn -B -q -DskipTests package\nit-tests/bench/sse-relay.sh 3 20 1000 50 200   "
               "# rounds, seconds measured, streams, ms between events, events per stream",
               ("it-tests/bench/sse-relay.sh " + sys.argv[8]).strip(), sys.argv[7],
               [C("target", "target"), C("events/s relayed", "events_per_s", "%,.0f"),
                C("latency p50 / p99 ms", ["p50_ms", "p99_ms"], "%.3f / %.3f"),
                C("added p50 / p99 ms", ["added_p50_ms", "added_p99_ms"], "%+.3f / %+.1f"),
                C("CPU ms per 1,000 events", "cpu_ms_per_1000", "%.1f"), C("stream errors", "errors", "%.0f"),
                C("threads", "threads", "%.0f"), C("RSS MB", "rss_mb", "%.0f"), C("heap used MB", "heap_mb", "%.0f")],
               table, machine=f"{page.os.cpu_count()} cores, {sys.argv[9]}")
    print(f"wrote {sys.argv[6]}", file=sys.stderr)
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
