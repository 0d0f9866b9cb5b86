package dev.caravan.sync;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.hazelcast.map.IMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.fleet.PrefixHasher;
import dev.caravan.policies.fleet.SessionClaim;
import dev.caravan.policies.fleet.SessionStore;

/**
 * manual's shared routing-key assignments on {@code IMap caravan.sessions}: a claim is one {@link ClaimSession} entry
 * processor on the key's owner, answered within {@link #CLAIM_TIMEOUT_MS} or failed (the policy then decides alone).
 * Answers continue on {@code executor}, never on Hazelcast's own threads. Keys are keyed hashes, so an observer of the
 * sync port never sees a routing key.
 */
final class HazelcastSessionStore implements SessionStore {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastSessionStore.class);
    /** Longest wait for the fleet's answer to a first request; beyond it the replica decides alone. */
    static final long CLAIM_TIMEOUT_MS = 500;

    private final Supplier<IMap<String, byte[]>> map;
    private final PrefixHasher hasher;
    private final Executor executor;
    private final SyncMetrics metrics;
    private final Set<String> touched = ConcurrentHashMap.newKeySet();
    private final boolean idleExpiry;

    /**
     * @param idleExpiry the map expires idle keys ({@code --max-idle-secs}), so routed keys must be touched; otherwise
     *                   {@link #touched} keeps nothing
     */
    HazelcastSessionStore(Supplier<IMap<String, byte[]>> map, PrefixHasher hasher, Executor executor,
            SyncMetrics metrics, boolean idleExpiry) {
        this.idleExpiry = idleExpiry;
        this.map = map;
        this.hasher = hasher;
        this.executor = executor;
        this.metrics = metrics;
    }

    @Override
    public String keyOf(String model, String routingKey) {
        return Long.toHexString(hasher.keyed(model + '\0' + routingKey));
    }

    @Override
    public CompletionStage<SessionClaim> claim(String model, String key, List<String> usable, String proposal) {
        CompletableFuture<SessionClaim> answer = new CompletableFuture<>();
        try {
            map.get().submitToKey(key, new ClaimSession(model, usable, proposal))
                    .toCompletableFuture()
                    .orTimeout(CLAIM_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .whenCompleteAsync((result, failure) -> {
                        if (failure != null || !result.compatible()) {
                            metrics.claim("failed");
                            metrics.failed("sessions");
                            LOG.warn("Session claim failed ({}); this replica decides alone",
                                    failure != null ? failure.toString() : "an entry of an unreadable schema");
                            answer.completeExceptionally(failure != null ? failure
                                    : new IllegalStateException("unreadable session entry"));
                        } else {
                            metrics.claim(result.branch());
                            answer.complete(new SessionClaim(result.workers(), result.branch(), result.version()));
                        }
                    }, executor);
        } catch (RuntimeException e) { // the member is shutting down
            metrics.claim("failed");
            answer.completeExceptionally(e);
        }
        return answer;
    }

    @Override
    public void touched(String key) {
        if (idleExpiry) {
            touched.add(key);
        }
    }

    /** Reads the keys routed since the last call, which restarts their idle time on the map; returns how many. */
    int flushTouches() {
        if (touched.isEmpty()) {
            return 0;
        }
        Set<String> keys = new HashSet<>(touched);
        touched.removeAll(keys);
        map.get().getAll(keys);
        return keys.size();
    }
}
