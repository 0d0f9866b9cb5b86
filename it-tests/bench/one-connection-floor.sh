#!/usr/bin/env bash
# The floor at one connection: what nginx, a bare Vert.x
# proxy on the gateway's own stack (dev.caravan.bench.floor.BareVertxProxy: same JVM, Vert.x, Netty and epoll, none of
# Caravan) and Caravan with its defaults each add at p50 to one simulated engine answering at once, interleaved round
# by round (wrk -t1 -c1), medians over the rounds. The bare proxy tells how much of Caravan's added latency the stack
# itself costs and how much is Caravan's own work.
#
# With FLOOR_JFR=1 it then records 30 s of JFR execution samples (every 1 ms) at one connection of the bare proxy and of
# Caravan, and prints each one's event-loop samples per 1,000 requests by the library of the innermost frame that
# belongs to one (Netty, Vert.x, Camel, Caravan, Jackson, ...): where Caravan's extra Java work per request is.
# With FLOOR_PERF=1 (needs perf: apt-get install -y linux-perf) it records 20 s of perf cpu-clock samples of each one's
# JVM at one connection and prints the event loops' whole CPU per request, kernel and stubs included, by the same
# libraries.
#
# Needs: the built jars (mvn -B -q -DskipTests package), wrk and nginx (apt-get install -y nginx wrk).
# Usage: it-tests/bench/one-connection-floor.sh [ROUNDS] [SECONDS]   (defaults 8 and 10)
# Environment: FLOOR_WARMUP (seconds of 16-connection load per target first, default 60), FLOOR_PORT_BASE (19300).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rounds=${1:-8}; secs=${2:-10}
for tool in wrk nginx java python3; do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }; done
if [ "${FLOOR_PERF:-0}" = 1 ] && ! command -v perf >/dev/null; then echo "missing: perf" >&2; exit 2; fi
. "$here/it-tests/bench/lib/completions.sh"
work="$(mktemp -d)"; base=${FLOOR_PORT_BASE:-19300}
sim_port=$((base + 1)); nginx_port=$((base + 2)); bare_port=$((base + 3)); gw_port=$((base + 4)); pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# copies: rebuilding a jar under a running JVM breaks its lazy class loading
cp "$here/app/target/caravan.jar" "$work/caravan.jar"; cp "$here/bench/target/caravan-bench.jar" "$work/bench.jar"
java -jar "$work/caravan.jar" sim --port $sim_port --time-scale 1000 --default-max-tokens 1 >"$work/sim.log" 2>&1 &
pids+=($!)
java -cp "$work/bench.jar" dev.caravan.bench.floor.BareVertxProxy $bare_port $sim_port >"$work/bare.log" 2>&1 &
pids+=($!); bare_pid=$!
java -jar "$work/caravan.jar" run --host 127.0.0.1 --port $gw_port --log-level warn --prometheus-port -1 \
  --worker-urls http://127.0.0.1:$sim_port >"$work/caravan.log" 2>&1 &
pids+=($!); gw_pid=$!
start_nginx "$work" $nginx_port $sim_port
post_lua "$work/post.lua"
await_completions $sim_port $nginx_port $bare_port $gw_port
targets=("direct:$sim_port" "nginx:$nginx_port" "bare-vertx:$bare_port" "caravan:$gw_port")
echo "warming up (JIT) ..." >&2
for t in "${targets[@]}"; do
  wrk -t2 -c16 -d"${FLOOR_WARMUP:-60}s" -s "$work/post.lua" "http://127.0.0.1:${t#*:}/v1/completions" >/dev/null
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$rounds"); do
  for t in "${targets[@]}"; do
    out=$(wrk -t1 -c1 -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:${t#*:}/v1/completions")
    echo "${t%%:*} $(wrk_p50_ms <<<"$out") $(awk '/Requests\/sec/ {print $2}' <<<"$out")" | tee -a "$work/results.txt" >&2
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$work/results.txt" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, p50, rps = line.split()
    rows[name].append((float(p50), float(rps)))
direct = [p for p, _ in rows["direct"]]
print("| target | p50 ms (median) | added p50 vs direct ms (median of the rounds) | lowest, highest added | req/s (median) |")
print("|---|---|---|---|---|")
for name, v in rows.items():
    added = [p - d for (p, _), d in zip(v, direct)]
    print(f"| {name} | {statistics.median(p for p, _ in v):.3f} | {statistics.median(added):+.3f} "
          f"| {min(added):+.3f}, {max(added):+.3f} | {statistics.median(r for _, r in v):,.0f} |")
PY
if [ "${FLOOR_JFR:-0}" = 1 ]; then
jfc="$work/fast.jfc"
sed 's|\(<setting name="period" control="method-sampling-java-interval">\)[^<]*|\11 ms|' \
  "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")/lib/jfr/profile.jfc" >"$jfc"
for t in "bare-vertx:$bare_port:$bare_pid" "caravan:$gw_port:$gw_pid"; do
  IFS=: read -r name port pid <<<"$t"
  jcmd "$pid" JFR.start name=floor settings="$jfc" duration=30s filename="$work/$name.jfr" >/dev/null
  n=$(wrk -t1 -c1 -d30s -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions" | awk '/requests in/ {print $1}')
  sleep 3
  jfr print --events jdk.ExecutionSample --stack-depth 96 "$work/$name.jfr" >"$work/$name.txt"
  echo "$name $n" >>"$work/jfr-requests.txt"
done
python3 - "$work" <<'PY'
import sys, re, collections
work = sys.argv[1]
# the innermost frame's library names the sample; the first prefix that matches wins (the bench's handler before Caravan)
groups = [("dev.caravan.bench", "the bare proxy's handler"), ("dev.caravan", "Caravan"), ("org.apache.camel", "Camel"),
          ("io.vertx.ext.web", "Vert.x Web"), ("io.vertx", "Vert.x core"), ("io.netty", "Netty"),
          ("com.fasterxml", "Jackson"), ("io.micrometer", "Micrometer"), ("io.github.resilience4j", "resilience4j")]
table, names = collections.defaultdict(dict), []
for line in open(f"{work}/jfr-requests.txt"):
    name, requests = line.split(); names.append(name); counts = collections.Counter()
    for event in open(f"{work}/{name}.txt").read().split("jdk.ExecutionSample {")[1:]:
        if "eventloop" not in event or "stackTrace = [" not in event:
            continue
        frames = re.findall(r"^\s{4}(\S+?)\(", event.split("stackTrace = [")[1], re.M)
        counts[next((g for f in frames for p, g in groups if f.startswith(p)), "JDK only")] += 1
    for g, k in counts.items():
        table[g][name] = 1000 * k / int(requests)
    table["all"][name] = 1000 * sum(counts.values()) / int(requests)
print("\n| event-loop samples per 1,000 requests (JFR, 1 ms) | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for g in sorted(table, key=lambda g: (g == "all", -max(table[g].values()))):
    print(f"| {g} | " + " | ".join(f"{table[g].get(n, 0):.1f}" for n in names) + " |")
PY
fi
if [ "${FLOOR_PERF:-0}" = 1 ]; then
  # perf's cpu-clock samples (every 0.5 ms of CPU time) see what JFR does not: the kernel, native code, the JVM's
  # stubs; Compiler.perfmap names the JIT-compiled Java methods for perf report
  for t in "bare-vertx:$bare_port:$bare_pid" "caravan:$gw_port:$gw_pid"; do
    IFS=: read -r name port pid <<<"$t"
    wrk -t1 -c1 -d30s -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions" >"$work/$name.perf-wrk" &
    wrk_pid=$!
    sleep 5
    perf record -q -e cpu-clock -F 1999 -p "$pid" -o "$work/$name.perf" -- sleep 20 2>/dev/null
    jcmd "$pid" Compiler.perfmap >/dev/null
    wait "$wrk_pid"
    perf report -i "$work/$name.perf" -n --no-children -g none --comm vert.x-eventloo --sort sym --stdio -q \
      >"$work/$name.sym" 2>/dev/null
    rm -f "/tmp/perf-$pid.map"
    echo "$name $(awk '/requests in/ {print $1}' "$work/$name.perf-wrk")" >>"$work/perf-requests.txt"
  done
  python3 - "$work" <<'PY'
import sys, re, collections
work = sys.argv[1]
java = [("dev.caravan.bench", "the bare proxy's handler"), ("dev.caravan", "Caravan"), ("org.apache.camel", "Camel"),
        ("io.vertx.ext.web", "Vert.x Web"), ("io.vertx", "Vert.x core"), ("io.netty", "Netty"),
        ("com.fasterxml", "Jackson"), ("io.micrometer", "Micrometer"), ("io.github.resilience4j", "resilience4j"),
        ("java.", "JDK"), ("jdk.", "JDK"), ("sun.", "JDK")]
def group(kind, symbol):
    if kind == "k":
        return "kernel"
    method = re.search(r"(?:^|\s)((?:[a-z][\w$]*\.)+)[A-Z][\w$]*(?:\$[\w$/.]*)?\.[\w$<>]+\(", symbol)
    if method:
        return next((g for p, g in java if method.group(1).startswith(p)), "other Java")
    if "vtable" in symbol or "itable" in symbol:
        return "interface and virtual call stubs"
    return "JVM stubs, interpreter, native libraries"
table, names = collections.defaultdict(dict), []
for line in open(f"{work}/perf-requests.txt"):
    name, requests = line.split(); names.append(name); counts = collections.Counter()
    for row in open(f"{work}/{name}.sym"):
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[(.)\]\s+(.*)", row)
        if m:
            counts[group(m.group(2), m.group(3))] += int(m.group(1))
    in_window = int(requests) * 20 / 30  # wrk ran 30 s, perf recorded 20 of them
    for g, k in counts.items():
        table[g][name] = k * 1e6 / 1999 / in_window
    table["all"][name] = sum(counts.values()) * 1e6 / 1999 / in_window
print("\n| event loops' CPU, µs per request (perf cpu-clock) | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for g in sorted(table, key=lambda g: (g == "all", -max(table[g].values()))):
    print(f"| {g} | " + " | ".join(f"{table[g].get(n, 0):.1f}" for n in names) + " |")
PY
fi
