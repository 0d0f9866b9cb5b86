package dev.caravan.policies.kv;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The blocks of the requests in flight on each engine rank, as a multiset of block keys: {@code kv_aware}'s decode
 * load in Dynamo's unit. A rank's active blocks are the <em>distinct</em> keys of its in-flight requests, so requests
 * sharing a prefix count it once — as the engine's KV pool does.
 *
 * <p>A request's keys are added when it is routed ({@link #add}) and removed when its lease is released (the returned
 * {@link Runnable}, idempotent). {@link #potential} is the rank's active blocks if a request with these keys were
 * added: Dynamo's {@code potential_blocks = active_blocks + new_blocks}.
 *
 * <p>Thread-safe: each rank's multiset is guarded by its own monitor; calls are short (one map operation per block).
 */
public final class ActiveBlocks {

    private record Rank(String workerId, int rank) {
    }

    private final ConcurrentHashMap<Rank, LongCounts> ranks = new ConcurrentHashMap<>();

    /** Adds a routed request's keys to the rank; run the result once when the request is over. */
    public Runnable add(String workerId, int rank, long[] keys) {
        Rank r = new Rank(workerId, rank);
        LongCounts m = ranks.computeIfAbsent(r, k -> new LongCounts());
        synchronized (m) {
            for (long k : keys) {
                m.add(k);
            }
        }
        boolean[] done = new boolean[1];
        return () -> {
            synchronized (m) {
                if (done[0]) {
                    return;
                }
                done[0] = true;
                for (long k : keys) {
                    m.remove(k);
                }
            }
        };
    }

    /** Distinct keys in flight on the rank. */
    public int active(String workerId, int rank) {
        LongCounts m = ranks.get(new Rank(workerId, rank));
        if (m == null) {
            return 0;
        }
        synchronized (m) {
            return m.size();
        }
    }

    /** The rank's active blocks if a request with {@code keys} were added to it. */
    public int potential(String workerId, int rank, long[] keys) {
        LongCounts m = ranks.get(new Rank(workerId, rank));
        if (m == null) {
            return distinct(keys);
        }
        synchronized (m) {
            if (m.size() == 0) {
                return distinct(keys);
            }
            int added = 0;
            for (long k : keys) {
                if (!m.contains(k)) {
                    added++;
                }
            }
            return m.size() + added;
        }
    }

    private static int distinct(long[] keys) {
        // request keys are chained, so they are distinct unless a collision: count them as such
        return keys.length;
    }

    /** Forgets a worker that left (its leases still release harmlessly into the detached maps). */
    public void removeWorker(String workerId) {
        ranks.keySet().removeIf(r -> r.workerId().equals(workerId));
    }

    /** Distinct active keys per worker (all ranks summed), a snapshot for metrics and tests. */
    public Map<String, Integer> activeByWorker() {
        Map<String, Integer> out = new HashMap<>();
        ranks.forEach((r, m) -> {
            int n;
            synchronized (m) {
                n = m.size();
            }
            out.merge(r.workerId(), n, Integer::sum);
        });
        return out;
    }
}
