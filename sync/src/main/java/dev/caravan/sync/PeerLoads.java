package dev.caravan.sync;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.PeerActiveBlocks;

/**
 * The other replicas' in-flight counts, summed into each {@link Worker#setPeerLoad}, and their kv_aware active blocks,
 * summed into {@link PeerActiveBlocks}: one report per member (its latest),
 * dropped when the member leaves or its report is older than {@link #STALE_NANOS} (a member that stopped reporting
 * must not weigh on the guards for ever). Workers are keyed by role and URL, the same on every replica.
 */
final class PeerLoads {

    /** A report older than this no longer counts (members report at least every second). */
    static final long STALE_NANOS = 5_000_000_000L;

    private record Report(Map<String, Integer> counts, Map<String, Integer> blocks, long receivedNanos) {
    }

    private final WorkerRegistry workers;
    private final PeerActiveBlocks activeBlocks;
    private final LongSupplier nanoTime;
    private final Map<UUID, Report> reports = new ConcurrentHashMap<>();

    PeerLoads(WorkerRegistry workers, PeerActiveBlocks activeBlocks, LongSupplier nanoTime) {
        this.workers = workers;
        this.activeBlocks = activeBlocks;
        this.nanoTime = nanoTime;
    }

    static String key(Worker w) {
        return w.role().wireName() + " " + w.url();
    }

    /** This replica's own counts as it publishes them: non-zero leases only. */
    Map<String, Integer> local() {
        Map<String, Integer> out = new HashMap<>();
        for (Worker w : workers.all()) {
            int n = w.localLoad();
            if (n > 0) {
                out.put(key(w), n);
            }
        }
        return out;
    }

    /** This replica's kv_aware active blocks as it publishes them: non-zero only, by worker key. */
    Map<String, Integer> localBlocks() {
        Map<String, Integer> byId = activeBlocks.local();
        Map<String, Integer> out = new HashMap<>();
        for (Worker w : workers.all()) {
            int n = byId.getOrDefault(w.id(), 0);
            if (n > 0) {
                out.put(key(w), n);
            }
        }
        return out;
    }

    void apply(UUID origin, SyncCodec.LoadReport report) {
        reports.put(origin, new Report(Map.copyOf(report.counts()), Map.copyOf(report.activeBlocks()),
                nanoTime.getAsLong()));
        recompute();
    }

    void remove(UUID origin) {
        if (reports.remove(origin) != null) {
            recompute();
        }
    }

    /** Keeps only the reports of current members. */
    void retain(Set<UUID> members) {
        if (reports.keySet().retainAll(members)) {
            recompute();
        }
    }

    /** Drops stale reports; returns true when one was dropped. */
    boolean expire() {
        long now = nanoTime.getAsLong();
        boolean dropped = reports.values().removeIf(r -> now - r.receivedNanos() > STALE_NANOS);
        if (dropped) {
            recompute();
        }
        return dropped;
    }

    synchronized void recompute() {
        Map<String, Integer> sum = new HashMap<>();
        Map<String, Integer> blocks = new HashMap<>();
        reports.values().forEach(r -> {
            r.counts().forEach((k, v) -> sum.merge(k, v, Integer::sum));
            r.blocks().forEach((k, v) -> blocks.merge(k, v, Integer::sum));
        });
        Map<String, Integer> blocksById = new HashMap<>();
        for (Worker w : workers.all()) {
            w.setPeerLoad(sum.getOrDefault(key(w), 0));
            Integer b = blocks.get(key(w));
            if (b != null) {
                blocksById.put(w.id(), b);
            }
        }
        activeBlocks.setPeers(blocksById);
    }
}
