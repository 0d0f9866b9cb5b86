#!/usr/bin/env bash
# Interleaved CPU per proxied request of several Caravan builds, for A/B comparisons of request-path changes:
# one simulated engine answering at once, one gateway per jar (defaults), then ROUNDS rounds of `wrk` against each in
# turn, so a noisy neighbour hits every build alike. Reports, per build, the median and the lowest CPU time per request
# of the gateway process and of its Vert.x event-loop threads (user + system, /proc), the median requests/second and
# the median p50 latency (at one connection the latency a change adds or saves, as the CPU columns are at many).
# For comparing a change against the build before it: copy each build's app/target/caravan.jar aside first.
#
# The table's last column is the median over the rounds of each build's CPU per request divided by the first build's
# in the same round: a noisy neighbour moves both sides of a round alike, so the paired ratio is steadier than the
# ratio of the medians; likewise the last but one, the median over the rounds of each build's p50 minus the first
# build's. Every other round runs the builds in reverse order, so that neither is always measured first.
#
# Needs: wrk. Usage: it-tests/bench/gateway-cpu-ab.sh ROUNDS SECONDS CONNECTIONS NAME=JAR [NAME=JAR ...]
#   e.g. it-tests/bench/gateway-cpu-ab.sh 10 6 16 before=/tmp/before.jar after=app/target/caravan.jar
# The same jar may appear under several names, e.g. to compare JVM options: CPU_AB_JAVA_OPTS_<NAME> gives the JVM
# options of build NAME (default: CARAVAN_JAVA_OPTS), e.g. CPU_AB_JAVA_OPTS_par=-XX:+UseParallelGC; CPU_AB_JAVA_<NAME>
# the java launcher it runs on (default: java on the PATH), e.g. CPU_AB_JAVA_jdk25=/usr/lib/jvm/<a JDK 25>/bin/java.
# The simulated engine always runs on the PATH's java.
# Ports: CPU_AB_PORT_BASE+1.. (default 18400). CPU_AB_WARMUP: seconds of JIT warm-up per build (default 15).
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,10p "$0" >&2; exit 2; }
rounds=$1; secs=$2; conns=$3; shift 3
command -v wrk >/dev/null || { echo "missing: wrk" >&2; exit 2; }
. "$(dirname "$0")/lib/completions.sh"
work="$(mktemp -d)"; base=${CPU_AB_PORT_BASE:-18400}; sim_port=$((base + 1))
names=(); ports=(); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
port=$((base + 1))
for spec in "$@"; do # copies: rebuilding a jar under a running JVM breaks its lazy class loading
  names+=("${spec%%=*}"); cp "${spec#*=}" "$work/${spec%%=*}.jar"
done
java -jar "$work/${names[0]}.jar" sim --port $sim_port --time-scale 1000 --default-max-tokens 1 >"$work/sim.log" 2>&1 &
pids+=($!)
for name in "${names[@]}"; do
  port=$((port + 1)); ports+=($port)
  opts_var="CPU_AB_JAVA_OPTS_$name"; java_var="CPU_AB_JAVA_$name"
  "${!java_var:-java}" ${!opts_var-${CARAVAN_JAVA_OPTS:-}} -jar "$work/$name.jar" run --host 127.0.0.1 --port $port --log-level warn \
    --prometheus-port -1 --worker-urls http://127.0.0.1:$sim_port >"$work/$name.log" 2>&1 &
  pids+=($!)
done
post_lua "$work/post.lua"
await_completions "${ports[@]}"
echo "warming up (JIT) ..." >&2
for p in "${ports[@]}"; do wrk -t2 -c16 -d"${CPU_AB_WARMUP:-15}s" -s "$work/post.lua" "http://127.0.0.1:$p/v1/completions" >/dev/null; done
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
loop_ticks() { # the Vert.x event loops' threads only (thread names are cut to 15 characters)
  local sum=0 t
  for t in /proc/"$1"/task/*; do
    grep -q '^vert.x-eventloo' "$t/comm" 2>/dev/null && sum=$((sum + $(sed 's/.*) //' "$t/stat" | awk '{print $12 + $13}')))
  done
  echo "$sum"
}
hz=$(getconf CLK_TCK); threads=$(( conns < 2 ? 1 : 2 ))
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
order=("${!names[@]}"); reversed=(); for ((k = ${#names[@]} - 1; k >= 0; k--)); do reversed+=("$k"); done
for r in $(seq 1 "$rounds"); do
  # every other round in reverse order (A B, B A, ...), so that neither build is always measured first
  if (( r % 2 == 0 )); then turn=("${reversed[@]}"); else turn=("${order[@]}"); fi
  for i in "${turn[@]}"; do
    pid=${pids[$((i + 1))]}
    c0=$(ticks "$pid"); l0=$(loop_ticks "$pid")
    out=$(wrk -t"$threads" -c"$conns" -d"${secs}s" --latency -s "$work/post.lua" \
      "http://127.0.0.1:${ports[$i]}/v1/completions")
    c1=$(ticks "$pid"); l1=$(loop_ticks "$pid")
    n=$(echo "$out" | awk '/requests in/ {print $1}'); rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(wrk_p50_ms <<<"$out")
    awk -v t="${names[$i]}" -v c=$((c1 - c0)) -v l=$((l1 - l0)) -v n="$n" -v r="$rps" -v p="$p50" -v hz="$hz" \
      'BEGIN {printf "%s %.1f %.1f %s %.3f\n", t, c * 1e6 / hz / n, l * 1e6 / hz / n, r, p}' | tee -a "$work/results.txt" >&2
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$work/results.txt" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, cpu, loop, rps, p50 = line.split()
    rows[name].append((float(cpu), float(loop), float(rps), float(p50)))
first = next(iter(rows.values()))
print("| build | CPU µs/request, median (lowest) | event loops µs/request, median (lowest) | req/s (median) "
      "| p50 ms (median) | rounds | p50 − first build's, median of the rounds (ms; rounds lower) "
      "| CPU ÷ first build's, median of the rounds |")
print("|---|---|---|---|---|---|---|---|")
for name, v in rows.items():
    cpu, loop, rps, p50 = zip(*v)
    paired = statistics.median(c / f[0] for c, f in zip(cpu, first))
    diffs = [p - f[3] for p, f in zip(p50, first)]
    lower = sum(d < 0 for d in diffs)
    print(f"| {name} | {statistics.median(cpu):.1f} ({min(cpu):.1f}) | {statistics.median(loop):.1f} ({min(loop):.1f}) "
          f"| {statistics.median(rps):,.0f} | {statistics.median(p50):.3f} | {len(v)} "
          f"| {statistics.median(diffs):+.3f} ({lower}/{len(v)}) | {paired:.3f} |")
PY
