#!/usr/bin/env bash
# One gateway against N replicas (docs/benchmarks.md): every row of docs/bench/results/replicas.json. Per b2b
# popularity, cache_aware and kv_aware behind one gateway and behind three with --sync hazelcast, then manual on a longer
# run (its stickiness needs every key to come back); then the row without sync on Mistral NeMo's files and SGLang's KV
# events. The other rows run on Qwen3's files (the bench's default: the engines' tokenizer and chat template, and
# kv_aware's --model-path). Each run merges its rows into RESULTS (default docs/bench/results/replicas.json).
# Needs bench/target/caravan-bench.jar (mvn -B -q -DskipTests package). About 2 hours on 2 shared cores.
# Usage: it-tests/bench/replicas.sh [SCALE]   (SCALE divides every request count; e.g. 40 for a smoke run)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
results="${RESULTS:-$root/docs/bench/results/replicas.json}"
scale="${1:-1}"
n() { echo $(($1 / scale)); }
cd "$root"
for row in "uniform|b2b uniform" "hot:0.4|b2b hot tenant (40 %)"; do
  pop="${row%%|*}" label="${row#*|}"
  ./caravan bench b2b --popularity "$pop" --requests "$(n 4000)" --warmup "$(n 1500)" --time-scale 1 --gateways 3 \
    --sync hazelcast --policies cache_aware,kv_aware --results "$results" --results-row "$label"
  ./caravan bench b2b --popularity "$pop" --requests "$(n 12000)" --warmup "$(n 4000)" --time-scale 1 --gateways 3 \
    --sync hazelcast --policies manual --results "$results" --results-row "$label"
done
./caravan bench b2b --requests "$(n 6000)" --warmup "$(n 2000)" --rate 30 --time-scale 1 --gateways 3 \
  --policies cache_aware,kv_aware --kv-publisher sglang --engine-tokenizer models/mistral_nemo \
  --results "$results" --results-row 'b2b NeMo chat'
