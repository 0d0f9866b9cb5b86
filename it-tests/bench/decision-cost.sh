#!/usr/bin/env bash
# The decision-cost sections of docs/performance.md: runs the routing core's JMH benchmarks from the shaded bench jar,
# each with -rf json, and merges every result file into docs/bench/results/decision-cost.json (JmhResults: a row per
# benchmark and parameter set), then pivots kv_aware's grid over ranks, prompt length and page size into
# docs/bench/results/decision-cost-curve.json (JmhResults --pivot: a row per prompt and page, a column per rank count,
# and its bar chart), and the KV-event ingest benchmark into docs/bench/results/kv-ingest.json (JmhResults --ingest: a
# row per rank count). Extra arguments replace every run's fork and iteration options (e.g. -f 0 -wi 0 -i 1 -w 100ms
# -r 100ms for a smoke run); OUT=FILE, CURVE_OUT=FILE and INGEST_OUT=FILE write other section files instead, and
# ONLY="NAME ..." runs only the named runs (e.g. ONLY="kv-aware-curve kv-ingest").
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
jar="$root/bench/target/caravan-bench.jar"
out="${OUT:-$root/docs/bench/results/decision-cost.json}"
curve="${CURVE_OUT:-$root/docs/bench/results/decision-cost-curve.json}"
ingest="${INGEST_OUT:-$root/docs/bench/results/kv-ingest.json}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[ -f "$jar" ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }
run() {  # NAME "BENCHMARK PARAMS" "FORKS AND ITERATIONS" [SECTION_FILE [--pivot|--ingest]]
  local name="$1" what="$2" how="${extra:-$3}" section="${4:-$out}" mode="${5:-}"
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $name "* ]] || return 0
  # shellcheck disable=SC2086  # the options are words
  java -cp "$jar" org.openjdk.jmh.Main $what $how -rf json -rff "$tmp/$name.json"
  # shellcheck disable=SC2086  # no mode is no word
  (cd "$root" && java -cp "$jar" dev.caravan.bench.results.JmhResults $mode "$tmp/$name.json" "$section" \
    "java -cp bench/target/caravan-bench.jar org.openjdk.jmh.Main $(echo $what $how)")
}
extra="$*"
run cache-aware "CacheAwareDecisionBenchmark -p promptChars=2000 -p sharedPrefixOwner=first -p fleet=off \
  -p discountSharedPrefix=true -p hotPrefixReplication=false,true -p treeBudget=configured,engine" "-f 1 -wi 3 -i 5"
run replica-sync "CacheAwareDecisionBenchmark -p promptChars=2000,10000 -p sharedPrefixOwner=first -p fleet=on \
  -p discountSharedPrefix=true -p hotPrefixReplication=false -p treeBudget=configured" "-f 1 -wi 2 -i 3"
run consistent-hash ConsistentHashBenchmark "-f 1 -wi 3 -i 5"
run tree-eviction "TreeEvictionBenchmark -p keep=0.5" "-f 1 -wi 2 -i 5"
# cache_aware over workers, prompt length and tree budget: JmhResults --curve, a row per prompt, a column per worker
# count and its bar chart (TreeMemory --curve adds the tree's bytes per character to the same rows)
run cache-aware-curve "CacheAwareDecisionBenchmark -p workers=8,64,256 -p promptChars=8000,128000,512000 \
  -p sharedPrefixOwner=first -p fleet=off -p discountSharedPrefix=true -p hotPrefixReplication=false \
  -p treeBudget=configured,engine" "-f 1 -wi 1 -w 1 -i 3 -r 1" "$root/docs/bench/results/cache-aware-curve.json" --curve
run kv-aware-curve "KvAwareDecisionBenchmark -p ranks=8,64,256 -p promptTokens=2080,32768,131072 -p blockSize=16,1 \
  -p discountSharedPrefix=true" "-f 1 -wi 3 -w 1 -i 3 -r 1" "$curve" --pivot
run kv-ingest "KvIngestBenchmark -p ranks=64,256 -p ingestRate=1000000" "-f 1 -wi 1 -w 2 -i 3 -r 2" "$ingest" --ingest
