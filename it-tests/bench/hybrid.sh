#!/usr/bin/env bash
# Hybrid models (docs/benchmarks.md, "Hybrid models"): kv_aware with its KV-cache group rules against the same policy
# reading every group as full attention (--kv-group-rules false), on simulated engines that cache like vLLM's hybrid KV
# cache manager: a gpt-oss-style layout (full attention + a 128-token sliding window, 16-token blocks) and a
# Qwen3.5-style one (full attention + Mamba, 528-token blocks, a state snapshot kept every 2nd block boundary), each on
# b2b and multiturn, with KV pools small enough that windows and snapshots are evicted. Both runs of a row see the same
# requests; decision quality counts, per request, whether the expected cached tokens equalled the engine's report, by the
# group rules and by full attention alone. A 60 s JVM warm-up first: with the default 15 s the first policy of each row
# was sent seconds late (JIT), the second not, and that alone moved hit rates by a percent.
# Needs: bench/target/caravan-bench.jar (mvn -B -q -DskipTests package).
# Usage: it-tests/bench/hybrid.sh [ROW...]   (default: all four rows: b2b-swa multiturn-swa b2b-mamba multiturn-mamba).
#   Reports: OUT/hybrid-ROW.{md,json,png} (OUT default /tmp/caravan-bench-hybrid); rows merge into RESULTS (default
#   docs/bench/results/hybrid.json).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rows=("$@")
[ ${#rows[@]} -eq 0 ] && rows=(b2b-swa multiturn-swa b2b-mamba multiturn-mamba)
out=${OUT:-/tmp/caravan-bench-hybrid}
results=${RESULTS:-$here/docs/bench/results/hybrid.json}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/bench/target/caravan-bench.jar" "$work/bench.jar"   # rebuilding during the run cannot change it
cd "$here"
mkdir -p "$out"
policies='kv_aware:decision-quality=true@kv_aware,kv_aware:decision-quality=true:kv-group-rules=false@kv_aware_full_attention'
SWA='--kv-groups full+swa:128 --block-size 16 --kv-capacity-tokens 30000'
MAMBA='--kv-groups full+mamba:528:2 --block-size 528 --kv-capacity-tokens 60000'
B2B='b2b --tenants 100 --requests 2400 --warmup 400'
MT='multiturn --requests 1200 --warmup 200'
for row in "${rows[@]}"; do
  case "$row" in
    b2b-swa) a="$B2B $SWA"; label="b2b · full + sliding window 128" ;;
    multiturn-swa) a="$MT $SWA"; label="multiturn · full + sliding window 128" ;;
    b2b-mamba) a="$B2B $MAMBA"; label="b2b · full + Mamba 528, every 2nd state" ;;
    multiturn-mamba) a="$MT $MAMBA"; label="multiturn · full + Mamba 528, every 2nd state" ;;
    *) echo "unknown row $row" >&2; exit 2 ;;
  esac
  echo "== $row: $(uptime)" >&2
  # shellcheck disable=SC2086
  java -jar "$work/bench.jar" $a --jvm-warmup-s 60 --policies "$policies" --json "$out/hybrid-$row.json" --out "$out" \
    --name "hybrid-$row" --results "$results" --results-row "$label"
done
