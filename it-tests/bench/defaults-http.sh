#!/usr/bin/env bash
# Hit rate and balance of the default policies on every workload, through the gateway (docs/benchmarks.md, "Hit rate
# and balance"): round_robin, default cache_aware, default kv_aware and consistent_hashing on seven workloads, in HTTP
# mode (the what-if mode has no KV events, so kv_aware needs real runs). Workload parameters are the what-if ones; only the
# request counts are cut and the time scales raised so the seven fit in about 35 minutes on 2 shared cores (check each
# report's "sent late by p99" column). The engines load Qwen3's files (models/qwen3, the bench's default: its tokenizer
# and chat template) and kv_aware gets the same files as --model-path; ENGINE_MODEL picks another model directory, or
# synthetic for the simulator's toy tokenizer.
# Needs: bench/target/caravan-bench.jar (mvn -B -q -DskipTests package) and the Mooncake trace (MOONCAKE_TRACE, default
# ../shared/traces/conversation_trace.jsonl beside the repository).
# Usage: it-tests/bench/defaults-http.sh [NAME_PREFIX [WORKLOAD...]]   (default prefix defaults-http; workloads
#   b2b-uniform b2b-hot04 b2b-zipf1 multiturn-sequential multiturn rag mooncake). Full reports: OUT/PREFIX-W.{md,json,png}
#   (OUT default /tmp/caravan-bench-PREFIX). Each run's row is merged into RESULTS (default
#   docs/bench/results/hit-rate.json, the page's section file; RESULTS=none leaves it alone).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
prefix=${1:-defaults-http}
shift $(( $# > 0 ? 1 : 0 ))
workloads=("$@")
[ ${#workloads[@]} -eq 0 ] && workloads=(b2b-uniform b2b-hot04 b2b-zipf1 multiturn-sequential multiturn rag mooncake)
policies=${POLICIES:-round_robin,cache_aware,kv_aware,consistent_hashing}
trace=${MOONCAKE_TRACE:-$here/../shared/traces/conversation_trace.jsonl}
out=${OUT:-/tmp/caravan-bench-$prefix}
results=${RESULTS:-$here/docs/bench/results/hit-rate.json}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/bench/target/caravan-bench.jar" "$work/bench.jar"   # rebuilding during the run cannot change it
cd "$here"   # the default model (models/qwen3) and the commit the results record are the repository's
model=()
[ -n "${ENGINE_MODEL:-}" ] && model=(--engine-tokenizer "$ENGINE_MODEL")

M='--engines 4 --shared-tokens 2048 --prefix-tokens 256'
B2B='--requests 2400 --warmup 800'
args() {
  case "$1" in
    b2b-uniform) echo "b2b $B2B" ;;
    b2b-hot04) echo "b2b --popularity hot:0.4 $B2B" ;;
    b2b-zipf1) echo "b2b --popularity zipf:1.0 $B2B" ;;
    multiturn-sequential) echo "multiturn --sequential $M --requests 320 --warmup 64 --time-scale 20" ;;
    multiturn) echo "multiturn $M --requests 1600 --warmup 320 --time-scale 2" ;;
    rag) echo "rag --requests 1200 --warmup 300 --time-scale 4" ;;
    mooncake) echo "trace $trace --limit 2000 --time-scale 6" ;;
    *) echo "unknown workload $1" >&2; return 2 ;;
  esac
}
# the row label of each workload on the results page
label() {
  case "$1" in
    b2b-uniform) echo "b2b uniform" ;;
    b2b-hot04) echo "b2b hot tenant (40 %)" ;;
    b2b-zipf1) echo "b2b Zipf 1.0" ;;
    multiturn-sequential) echo "multiturn sequential (4 engines)" ;;
    multiturn) echo "multiturn 20 req/s (4 engines)" ;;
    rag) echo "rag" ;;
    mooncake) echo "Mooncake first 2,000" ;;
  esac
}
mkdir -p "$out"
for w in "${workloads[@]}"; do
  a=$(args "$w")
  res=()
  [ "$results" != none ] && res=(--results "$results" --results-row "$(label "$w")")
  echo "$(date -u +%T) $w: $a; $(uptime | sed 's/.*load/load/')" >&2
  # shellcheck disable=SC2086
  java ${CARAVAN_JAVA_OPTS:-} -jar "$work/bench.jar" $a "${model[@]}" ${EXTRA:-} --policies "$policies" \
    --json "$out/$prefix-$w.json" --out "$out" --name "$prefix-$w" "${res[@]}" >/dev/null 2>"$work/$w.log" \
    || { tail -20 "$work/$w.log" >&2; exit 1; }
  grep -E '^\| ([a-z_:=@.-]+ \| [0-9,]+ \(|\*ceiling)' "$out/$prefix-$w.md" | cut -c1-160 >&2
done
echo "$(date -u +%T) done; $(uptime | sed 's/.*load/load/')" >&2
