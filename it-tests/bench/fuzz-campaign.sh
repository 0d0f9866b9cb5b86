#!/usr/bin/env bash
# Fuzzing campaign (docs/reliability.md, "Fuzzing"): runs every Jazzer fuzz target (@FuzzTest) in fuzzing mode for
# SECONDS_PER_TARGET seconds each, one Maven run per target, and writes what each did — executions, coverage (edges,
# libFuzzer's "cov"), features, corpus size and findings — to docs/bench/results/fuzz.json, the "Fuzzing" section of
# docs/benchmarks.md (regenerate the page with ResultsPageTest -Dcaravan.docs.write=true).
#
# A finding is an input that broke the target's oracle: Jazzer writes it as crash-<sha1> into the target's inputs
# directory under src/test/resources (so plain `mvn test` replays it from then on) and the target's run fails; the
# script lists it, goes on with the next target and exits 1 at the end. Inputs that found new coverage go to
# .cifuzz-corpus/ of the module (not committed; also replayed by `mvn test` where present).
#
# Usage: it-tests/bench/fuzz-campaign.sh [SECONDS_PER_TARGET] [TARGET_FILTER]
#        default 600 s per target; TARGET_FILTER (a regex) runs only the targets whose Class#method matches.
# RESULTS: the section file (default docs/bench/results/fuzz.json; RESULTS=none writes none). LOGS: where each target's
# Maven output and libFuzzer's log are kept (default a temporary directory, removed at the end unless set). MVN: the
# Maven command (default mvn). DIRECT=1: no Maven run per target; each target runs in a JVM of its own on the test
# class path Surefire recorded in the module's target/surefire-reports (run the module's tests once before), through
# it-tests/bench/lib/FuzzLaunch.java; libFuzzer's output then goes straight to the log.
set -euo pipefail
load_start=$(cut -d' ' -f1 /proc/loadavg)
here="$(cd "$(dirname "$0")/../.." && pwd)"
secs=${1:-600}
filter=${2:-.}
logs="${LOGS:-$(mktemp -d)}"
[ -n "${LOGS:-}" ] || trap 'rm -rf "$logs"' EXIT
mkdir -p "$logs"

# module  class  method
targets="processors dev.caravan.processors.request.RequestBodyFuzzTest requestBody
processors dev.caravan.processors.kv.KvFramesFuzzTest liveFrames
processors dev.caravan.processors.kv.KvFramesFuzzTest replayAnswers
processors dev.caravan.processors.forward.UsageReadingFuzzTest usageReading
processors dev.caravan.processors.admin.AdminBodyFuzzTest adminInput
processors dev.caravan.processors.flow.TenantsFileFuzzTest tenantsFile
sync dev.caravan.sync.SyncMessageFuzzTest peerMessage"

summary="$logs/summary.tsv"
: > "$summary"
status=0
while read -r module class method; do
  name="${class##*.}#$method"
  [[ "$name" =~ $filter ]] || continue
  inputs="$here/$module/src/test/resources/$(echo "${class%.*}" | tr . /)/${class##*.}Inputs/$method"
  before=$(find "$inputs" -name 'crash-*' 2>/dev/null | sort)
  log="$logs/${class##*.}-$method.log"
  echo "fuzzing $name for $secs s" >&2
  # JAZZER_FUZZ=1: fuzzing mode. Jazzer 0.24 takes extra libFuzzer flags as the JUnit configuration parameters
  # jazzer.internal.arg.N (argument 0 is a program name); flags given there come after the @FuzzTest's own and win.
  jazzer=(-Djazzer.hooks=true -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1=-max_total_time="$secs"
    -Djazzer.internal.arg.2=-print_final_stats=1)
  set +e
  if [ -n "${DIRECT:-}" ]; then
    cp=$(grep -ho 'name="surefire.test.class.path" value="[^"]*' "$here/$module"/target/surefire-reports/TEST-*.xml \
      | head -1 | sed 's/.*value="//')
    [ -n "$cp" ] || { echo "no Surefire report in $module/target: run its tests first" >&2; exit 2; }
    (cd "$here/$module" && JAZZER_FUZZ=1 java "${jazzer[@]}" -cp "$cp" "$here/it-tests/bench/lib/FuzzLaunch.java" \
      "$class" "$method") > "$log" 2>&1
  else
    (cd "$here" && JAZZER_FUZZ=1 "${MVN:-mvn}" -B -o -pl "$module" -am test -Dtest="$class#$method" \
      -Dsurefire.failIfNoSpecifiedTests=false -DtrimStackTrace=false "${jazzer[@]}") > "$log" 2>&1
  fi
  rc=$?
  set -e
  # libFuzzer writes to the forked JVM's stderr, which Surefire keeps in its dump stream files
  fuzzlog="$logs/${class##*.}-$method.fuzz.log"
  cat "$here/$module"/target/surefire-reports/*.dumpstream "$log" 2>/dev/null > "$fuzzlog" || true
  rm -f "$here/$module"/target/surefire-reports/*.dumpstream
  after=$(find "$inputs" -name 'crash-*' 2>/dev/null | sort)
  found=$(comm -13 <(echo "$before") <(echo "$after") | grep -c . || true)
  [ "$rc" -eq 0 ] || [ "$found" -gt 0 ] || echo "$name: Maven failed without a finding, see $log" >&2
  [ "$rc" -eq 0 ] || status=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$module" "$name" "$secs" "$rc" "$found" "$fuzzlog" >> "$summary"
  comm -13 <(echo "$before") <(echo "$after") | sed "s|^|  finding: |" >&2
done <<< "$targets"

python3 - "$summary" "$here" "${RESULTS:-$here/docs/bench/results/fuzz.json}" "$load_start" "$secs" "$*" \
  "$(java -version 2>&1 | head -1)" "${DIRECT:+DIRECT=1 }" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[2] + "/it-tests/bench/lib")
import results as page
rows = []
for line in open(sys.argv[1]):
    module, name, secs, rc, found, fuzzlog = line.rstrip("\n").split("\t")
    text = open(fuzzlog, errors="replace").read()
    # libFuzzer's status lines: "#<runs> <EVENT> cov: <edges> ft: <features> corp: <units>/<size> ... exec/s: <n>"
    status = re.findall(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/", text, re.M)
    execs = re.findall(r"stat::number_of_executed_units: (\d+)", text)
    done = re.findall(r"Done (\d+) runs in (\d+) second", text)
    runs = int(execs[-1]) if execs else (int(done[-1][0]) if done else (int(status[-1][0]) if status else 0))
    seconds = int(done[-1][1]) if done else int(secs)
    row = {"target": name, "module": module, "seconds": seconds, "executions": runs,
           "executions_per_s": runs / seconds if seconds else None,
           "edges": int(status[-1][1]) if status else None, "features": int(status[-1][2]) if status else None,
           "corpus": int(status[-1][3]) if status else None, "findings": int(found),
           "result": "finding" if int(found) else ("ok" if rc == "0" else "failed")}
    rows.append(row)
    print(f"{name:40} {runs:>10} runs  cov {row['edges']}  ft {row['features']}  corpus {row['corpus']}  "
          f"findings {found}  {row['result']}")
if sys.argv[3] != "none" and rows:
    C = page.column
    ran = (sys.argv[8] + "it-tests/bench/fuzz-campaign.sh " + sys.argv[6]).strip()
    page.write(sys.argv[3], sys.argv[2],
               ran + "   # seconds per target; the targets' regression inputs run in mvn test", ran, sys.argv[4],
               [C("target", "target"), C("module", "module"), C("seconds", "seconds", "%.0f"),
                C("executions", "executions", "%,.0f"), C("executions/s", "executions_per_s", "%,.0f"),
                C("edges covered", "edges", "%,.0f"), C("features", "features", "%,.0f"),
                C("corpus inputs", "corpus", "%,.0f"), C("findings", "findings", "%.0f"), C("result", "result")],
               rows, machine=f"{page.os.cpu_count()} cores, {sys.argv[7]}")
    print(f"wrote {sys.argv[3]}", file=sys.stderr)
PY
exit "$status"
