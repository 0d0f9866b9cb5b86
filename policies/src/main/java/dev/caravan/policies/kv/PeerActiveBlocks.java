package dev.caravan.policies.kv;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * kv_aware's decode load across gateway replicas (replica sync): this replica's active blocks per worker, summed over
 * its kv_aware policies, for the peers ({@link #local}); and the peers' reported totals per worker, which each policy
 * adds to the active blocks it counts itself ({@link #peers}). A block a peer also has in flight on the same worker is
 * counted once per replica — shared prefixes of requests routed by different replicas count up to N times — which
 * errs towards spreading, never towards herding (docs/design/replica-sync.md).
 *
 * <p>Thread-safe: policies register at construction; the sync thread replaces the peers' map as a whole.
 */
public final class PeerActiveBlocks {

    private final List<ActiveBlocks> local = new CopyOnWriteArrayList<>();
    private volatile Map<String, Integer> peers = Map.of();

    /** A kv_aware policy's own in-flight blocks, reported to the peers from now on. */
    public void register(ActiveBlocks blocks) {
        local.add(blocks);
    }

    /** This replica's distinct active blocks per worker id (all ranks, all kv_aware policies). */
    public Map<String, Integer> local() {
        Map<String, Integer> out = new HashMap<>();
        for (ActiveBlocks a : local) {
            a.activeByWorker().forEach((id, n) -> out.merge(id, n, Integer::sum));
        }
        return out;
    }

    /** Replaces the peers' totals, by worker id (workers this replica does not know are left out by the caller). */
    public void setPeers(Map<String, Integer> byWorkerId) {
        peers = Map.copyOf(byWorkerId);
    }

    /** The peers' active blocks on the worker (all its ranks), 0 when none reported. */
    public int peers(String workerId) {
        return peers.getOrDefault(workerId, 0);
    }
}
