package dev.caravan.policies.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The blocks of the requests in flight on each engine rank: {@code kv_aware}'s decode load in Dynamo's unit. A rank's
 * active blocks are the <em>distinct</em> block keys of its in-flight requests, so requests sharing a prefix count it
 * once — as the engine's KV pool does.
 *
 * <p>A request's keys are a chain ({@link BlockKeys}): key i stands for blocks 0..i, so two requests share exactly
 * the keys before the first position where their chains differ, and that position (their common prefix) is found by
 * bisection. The rank keeps its requests' chains, not their keys one by one: the distinct count is kept up to date as
 * requests come and go (a request adds its chain's length minus its longest common prefix with the others, and its
 * own extra blocks), and {@link #potential} costs one bisection per request in flight on the rank, whatever the
 * chains' length.
 *
 * <p>A request's chain is added when it is routed ({@link #add}) and removed when its lease is released (the returned
 * {@link Runnable}, idempotent). {@link #potential} is the rank's active blocks if a request with these keys were
 * added: Dynamo's {@code potential_blocks = active_blocks + new_blocks}. Chains are kept by reference and must not
 * change.
 *
 * <p>Thread-safe: each rank's set is guarded by its own monitor.
 */
public final class ActiveBlocks {

    /** One rank's requests in flight. */
    private static final class Requests {
        final List<KeyChain> chains = new ArrayList<>();
        /** Distinct keys over the chains, plus every request's extra blocks. */
        int distinct;
        /** The chains' count, written under the monitor: a rank with none is read without locking. */
        volatile int inFlight;

        /** The longest prefix of {@code chain} that some request in flight shares. */
        int shared(KeyChain chain) {
            int best = 0;
            for (KeyChain c : chains) {
                best = Math.max(best, KeyChain.commonPrefix(chain, c));
                if (best == chain.length()) {
                    break;
                }
            }
            return best;
        }
    }

    /** Worker id → its ranks' requests by rank (an array that only grows, copied and replaced in compute). */
    private final ConcurrentHashMap<String, Requests[]> workers = new ConcurrentHashMap<>();

    /** Adds a routed request's chain to the rank; run the result once when the request is over. */
    public Runnable add(String workerId, int rank, long[] chain) {
        return add(workerId, rank, KeyChain.of(chain), 0);
    }

    /**
     * Adds a routed request's chain and {@code extra} blocks of its own that no other request shares (its partial tail
     * and decode tokens); run the result once when the request is over.
     */
    public Runnable add(String workerId, int rank, long[] chain, int extra) {
        return add(workerId, rank, KeyChain.of(chain), extra);
    }

    /** {@link #add(String, int, long[], int)} of a request's chain as the key cache holds it. */
    public Runnable add(String workerId, int rank, KeyChain chain, int extra) {
        Requests m = requests(workerId, rank);
        synchronized (m) {
            m.distinct += chain.length() - m.shared(chain) + extra;
            m.chains.add(chain);
            m.inFlight = m.chains.size();
        }
        boolean[] done = new boolean[1];
        return () -> {
            synchronized (m) {
                if (done[0]) {
                    return;
                }
                done[0] = true;
                for (int i = m.chains.size() - 1; i >= 0; i--) {
                    if (m.chains.get(i) == chain) {
                        m.chains.remove(i);
                        break;
                    }
                }
                m.distinct -= chain.length() - m.shared(chain) + extra;
                m.inFlight = m.chains.size();
            }
        };
    }

    /** The rank's set, created on first use. */
    private Requests requests(String workerId, int rank) {
        Requests[] byRank = workers.get(workerId);
        if (byRank != null && rank < byRank.length && byRank[rank] != null) {
            return byRank[rank];
        }
        Requests[] grown = workers.compute(workerId, (id, old) -> {
            Requests[] out = old == null ? new Requests[rank + 1]
                    : old.length > rank ? old : Arrays.copyOf(old, rank + 1);
            if (out[rank] == null) {
                out = out == old ? old.clone() : out;
                out[rank] = new Requests();
            }
            return out;
        });
        return grown[rank];
    }

    /** The rank's set, or null when it has never had a request. */
    private Requests existing(String workerId, int rank) {
        Requests[] byRank = workers.get(workerId);
        return byRank == null || rank >= byRank.length ? null : byRank[rank];
    }

    /** Distinct keys in flight on the rank. */
    public int active(String workerId, int rank) {
        Requests m = existing(workerId, rank);
        if (m == null) {
            return 0;
        }
        synchronized (m) {
            return m.distinct;
        }
    }

    /** The rank's active blocks if a request with {@code chain} were added to it. */
    public int potential(String workerId, int rank, KeyChain chain) {
        Requests m = existing(workerId, rank);
        if (m == null || m.inFlight == 0) {
            return chain.length();
        }
        synchronized (m) {
            return m.distinct + chain.length() - m.shared(chain);
        }
    }

    /** {@link #potential(String, int, KeyChain)} of one array's keys. */
    public int potential(String workerId, int rank, long[] chain) {
        return potential(workerId, rank, KeyChain.of(chain));
    }

    /** Forgets a worker that left (its leases still release harmlessly into the detached sets). */
    public void removeWorker(String workerId) {
        workers.remove(workerId);
    }

    /** Distinct active keys per worker (all ranks summed), a snapshot for metrics and tests. */
    public Map<String, Integer> activeByWorker() {
        Map<String, Integer> out = new HashMap<>();
        workers.forEach((id, byRank) -> {
            for (Requests m : byRank) {
                if (m == null) {
                    continue;
                }
                int n;
                synchronized (m) {
                    n = m.distinct;
                }
                out.merge(id, n, Integer::sum);
            }
        });
        return out;
    }
}
