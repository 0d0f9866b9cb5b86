# Shared by gateway-overhead.sh and sse-relay.sh: two Caravan replicas with replica sync on (--sync hazelcast), one
# Hazelcast cluster on loopback with a static member list, a cluster name and a secret of this run only; the
# benchmarks load the first. Source this file; it defines functions only.

# start_sync_pair WORK JAR UPSTREAM_URL PORT1 PORT2 SYNC_PORT1 SYNC_PORT2: starts both replicas (the second once the
# first answers: two members starting at once may each form a cluster of their own, merged only by Hazelcast's
# split-brain healing tens of seconds later), appends their pids to the array `pids` and sets `sync_pid` to the
# first one's. Logs in WORK/gw-sync.log and WORK/gw-sync2.log. JVM options: CARAVAN_JAVA_OPTS.
start_sync_pair() {
  local work=$1 jar=$2 upstream=$3 port1=$4 port2=$5 sync1=$6 sync2=$7
  local flags=(--host 127.0.0.1 --log-level warn --prometheus-port -1 --worker-urls "$upstream"
    --sync hazelcast --sync-host 127.0.0.1 --sync-members "127.0.0.1:$sync1,127.0.0.1:$sync2"
    --sync-cluster-name "bench-$$" --sync-secret "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')")
  "${CARAVAN_GATEWAY_JAVA:-java}" ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --port "$port1" "${flags[@]}" --sync-port "$sync1" \
    >"$work/gw-sync.log" 2>&1 &
  pids+=($!); sync_pid=$!
  for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$port1/metrics" && break; sleep 1; done
  "${CARAVAN_GATEWAY_JAVA:-java}" ${CARAVAN_JAVA_OPTS:-} -jar "$jar" run --port "$port2" "${flags[@]}" --sync-port "$sync2" \
    >"$work/gw-sync2.log" 2>&1 &
  pids+=($!)
}

# await_sync_pair PORT1: waits (up to two minutes) until the first replica reports both members in its cluster;
# fails otherwise.
await_sync_pair() {
  # the scrape is read whole before grep: with pipefail, `curl | grep -q` fails when grep stops reading first
  members() { grep -q '^caravan_sync_members 2' <<<"$(curl -s "http://127.0.0.1:$1/metrics")"; }
  for _ in $(seq 1 120); do
    members "$1" && return 0
    sleep 1
  done
  members "$1" || { echo "sync cluster did not form" >&2; return 1; }
}
