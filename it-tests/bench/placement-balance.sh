#!/usr/bin/env bash
# cache_aware's balance with few and with many tenants per engine (docs/benchmarks.md, "Placement with few tenants per
# engine"): default cache_aware against itself with --request-share-margin 0 (placement by in-flight load only, SGLang's
# rule), on b2b with 125 and with 1,000 tenants over 8 engines, seeds 1 to 3, in what-if mode (simulated time: the
# figures do not depend on the machine's load, only the wall time does).
# Needs: bench/target/caravan-bench.jar (mvn -B -q -DskipTests package).
# Usage: it-tests/bench/placement-balance.sh   Reports: OUT (default /tmp/caravan-bench-placement)/b2b-W-sS.{md,json};
#   each run's row is merged into RESULTS (default docs/bench/results/placement-balance.json; none leaves it alone).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
out=${OUT:-/tmp/caravan-bench-placement}
results=${RESULTS:-$here/docs/bench/results/placement-balance.json}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/bench/target/caravan-bench.jar" "$work/bench.jar"   # rebuilding during the run cannot change it
policies='cache_aware:request-share-margin=0@in_flight_only,cache_aware@default'
mkdir -p "$out"
for tenants in 125 1000; do
  for seed in 1 2 3; do
    name="b2b-$tenants-s$seed"
    res=()
    [ "$results" != none ] && res=(--results "$results" --results-row "b2b, $tenants tenants, seed $seed")
    echo "$(date -u +%T) $name; $(uptime | sed 's/.*load/load/')" >&2
    java ${CARAVAN_JAVA_OPTS:-} -jar "$work/bench.jar" b2b --mode whatif --tenants "$tenants" --seed "$seed" \
      --policies "$policies" --json "$out/$name.json" --out "$out" --name "$name" "${res[@]}" >/dev/null \
      2>"$work/$name.log" || { tail -20 "$work/$name.log" >&2; exit 1; }
    grep -E '^\| (in_flight_only|default) \|' "$out/$name.md" | cut -c1-160 >&2
  done
done
echo "$(date -u +%T) done; $(uptime | sed 's/.*load/load/')" >&2
