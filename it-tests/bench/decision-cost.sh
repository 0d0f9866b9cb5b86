#!/usr/bin/env bash
# The decision-cost section of docs/benchmarks.md: runs the routing core's JMH benchmarks from the shaded bench jar,
# each with -rf json, and merges every result file into docs/bench/results/decision-cost.json (JmhResults: a row per
# benchmark and parameter set). Extra arguments replace every run's fork and iteration options (e.g. -f 0 -wi 0 -i 1
# -w 100ms -r 100ms for a smoke run); OUT=FILE writes another section file instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
jar="$root/bench/target/caravan-bench.jar"
out="${OUT:-$root/docs/bench/results/decision-cost.json}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[ -f "$jar" ] || { echo "build first: mvn -B -q -DskipTests package" >&2; exit 1; }
run() {  # NAME "BENCHMARK PARAMS" "FORKS AND ITERATIONS"
  local name="$1" what="$2" how="${extra:-$3}"
  # shellcheck disable=SC2086  # the options are words
  java -cp "$jar" org.openjdk.jmh.Main $what $how -rf json -rff "$tmp/$name.json"
  (cd "$root" && java -cp "$jar" dev.caravan.bench.results.JmhResults "$tmp/$name.json" "$out" \
    "java -cp bench/target/caravan-bench.jar org.openjdk.jmh.Main $(echo $what $how)")
}
extra="$*"
run cache-aware "CacheAwareDecisionBenchmark -p promptChars=2000 -p sharedPrefixOwner=first -p fleet=off \
  -p discountSharedPrefix=true -p hotPrefixReplication=false,true -p treeBudget=configured,engine" "-f 1 -wi 3 -i 5"
run replica-sync "CacheAwareDecisionBenchmark -p promptChars=2000,10000 -p sharedPrefixOwner=first -p fleet=on \
  -p discountSharedPrefix=true -p hotPrefixReplication=false -p treeBudget=configured" "-f 1 -wi 2 -i 3"
run consistent-hash ConsistentHashBenchmark "-f 1 -wi 3 -i 5"
run tree-eviction "TreeEvictionBenchmark -p keep=0.5" "-f 1 -wi 2 -i 5"
