#!/usr/bin/env bash
# Streams at scale (docs/performance.md, "Streams at scale"): the SSE relay benchmark (sse-relay.sh, origin and load
# client on loopback, Caravan with its defaults) at two stream counts offering the same events per second, so the
# event rate is not what differs: 1,000 streams with one event every 100 ms and STREAMS (default 9,000) with one
# event every STREAMS/10 ms; 100 events per stream either way, so streams also start at the same rate (100 a second)
# and only their number differs. Writes the caravan rows (added latency per event, CPU per event, threads, RSS, heap)
# into docs/bench/results/sse-streams.json (RESULTS=FILE writes elsewhere).
#
# 9,000 and not 10,000: a proxied stream holds two sockets in the gateway (client and engine), and this machine's
# open-files limit is 20,000 per process (`ulimit -Hn`; raising it is not permitted here), so 10,000 streams cannot be
# open through one process at once.
# Needs what sse-relay.sh needs. Usage: it-tests/bench/sse-streams.sh [ROUNDS] [SECONDS] [STREAMS]
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rounds=${1:-2}
secs=${2:-20}
many=${3:-9000}
load_start=$(cut -d' ' -f1 /proc/loadavg)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# one origin behind the gateway: its pool must hold every stream (the default is 1,024 connections per worker)
export CARAVAN_MAX_CONNECTIONS_PER_WORKER=$((many + 1000))
for streams in 1000 "$many"; do
  interval=$((streams / 10))
  SSE_SYNC=off SSE_NGINX=off RESULTS="$work/$streams.json" \
    "$here/it-tests/bench/sse-relay.sh" "$rounds" "$secs" "$streams" "$interval" 100
done
python3 - "$here" "$work" "$many" "${RESULTS:-$here/docs/bench/results/sse-streams.json}" "$load_start" "$*" \
  "$(java -version 2>&1 | head -1)" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1] + "/it-tests/bench/lib")
import results as page
here, work, many = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = []
for streams in (1000, many):
    section = json.load(open(f"{work}/{streams}.json"))
    row = next(r for r in section["rows"] if r["target"] == "caravan")
    rows.append({"streams": streams, "interval_ms": streams // 10, **{k: v for k, v in row.items() if k != "target"}})
base = rows[0]["added_p50_ms"]
for r in rows:
    r["added_p50_vs_1000"] = r["added_p50_ms"] / base if base else None
C = page.column
page.write(sys.argv[4], here,
           "mvn -B -q -DskipTests package\nit-tests/bench/sse-streams.sh 2 20 9000   # rounds, seconds measured, streams",
           ("it-tests/bench/sse-streams.sh " + sys.argv[6]).strip(), sys.argv[5],
           [C("streams open", "streams", "%,.0f"), C("ms between a stream's events", "interval_ms", "%,.0f"),
            C("events/s relayed", "events_per_s", "%,.0f"),
            C("added p50 / p99 ms", ["added_p50_ms", "added_p99_ms"], "%+.3f / %+.1f"),
            C("added p50 vs 1,000 streams", "added_p50_vs_1000", "%.2fx"),
            C("CPU ms per 1,000 events", "cpu_ms_per_1000", "%.1f"), C("stream errors", "errors", "%.0f"),
            C("threads", "threads", "%.0f"), C("RSS MB", "rss_mb", "%.0f"), C("heap used MB", "heap_mb", "%.0f")],
           rows, machine=f"{page.os.cpu_count()} cores, {sys.argv[7]}")
print(f"wrote {sys.argv[4]}", file=sys.stderr)
PY
