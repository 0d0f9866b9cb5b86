#!/usr/bin/env bash
# Replica-sync cost curve (docs/benchmarks.md, "Replica-sync cost over replicas"): for 1, 3 and 5 gateway replicas, a
# fleet of app-jar processes without sync and one with --sync hazelcast (one Hazelcast cluster on loopback), each in
# front of 4 fresh simulated engines, warmed up for 60 s, measured idle for 15 s, then measured for SECONDS under RATE
# requests/s spread round robin over the replicas (one-token completions: 16 tenants' 2,000-char preambles, each
# request with a question of its own). Reports the gateways' CPU per request (user + system, /proc/<pid>/stat), the
# sync cost per request against one gateway without sync, its ratio to the cost at 3 replicas, the same without the JIT
# compilers' threads, the Hazelcast threads' part (/proc/<pid>/task), the idle CPU, and the decision-visibility lag
# (the replicas' caravan_sync_lag_seconds{channel="decisions"}), with the load average around each fleet. Writes
# docs/bench/results/sync-cost.json anew (RESULTS=FILE writes elsewhere, RESULTS=none nowhere). About 20 minutes at the
# defaults on 2 cores.
# Extra arguments go to the driver (dev.caravan.bench.synccost.SyncCostMain --help), e.g. --jfr DIR to record every
# gateway with JFR, --replicas 1,3 --no-sync 1 for a shorter run.
# Needs: the built jars (mvn -B -q -DskipTests package); the driver runs from bench/target: rebuild after the run.
# Usage: it-tests/bench/sync-cost.sh [SECONDS] [RATE] [DRIVER OPTIONS...]   (defaults: 60 s, 200 requests/s)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
secs=${1:-60}
rate=${2:-200}
shift $(( $# > 2 ? 2 : $# )) || true
app="$here/app/target/caravan.jar"
bench="$here/bench/target/caravan-bench.jar"
for j in "$app" "$bench"; do
  [ -f "$j" ] || { echo "build first: mvn -B -q -DskipTests package ($j)" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -f "$work"/*.jar' EXIT   # the gateways' logs stay in $work/logs
# the gateways run from a copy: rebuilding the jar under a running JVM breaks its lazy class loading
cp "$app" "$work/caravan.jar"
results="${RESULTS:-docs/bench/results/sync-cost.json}"
out=()
[ "$results" = none ] || out=(--results "$results")
cd "$here"
java -cp bench/target/caravan-bench.jar dev.caravan.bench.synccost.SyncCostMain --jar "$work/caravan.jar" \
  --seconds "$secs" --rate "$rate" --work-dir "$work/logs" "${out[@]}" "$@"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
