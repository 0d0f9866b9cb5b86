package dev.caravan.processors.responses;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

import dev.caravan.policies.Worker;
import dev.caravan.processors.forward.ResponseIdSink;

/**
 * Which worker stored which Responses API response: the engines keep a response (for {@code previous_response_id},
 * {@code GET /v1/responses/{id}}) in their own memory, so a request continuing it must reach the same engine.
 *
 * <p>Bounded and expiring: at most {@code maxEntries} ids, least recently used dropped first, and an id not used for
 * {@code ttl} is forgotten (an engine that restarted has forgotten it too). Thread-safe: one lock around a small
 * access-ordered map; both operations are O(1) and run once per Responses request.
 *
 * <p>Gateway replicas ({@code --sync hazelcast}) share it: replica sync listens to the ids this replica's workers store
 * ({@link #onStored}) and hands it the ids its peers' workers stored ({@link #remember}), so a request continuing a
 * response reaches the engine that holds it through any replica.
 */
public final class ResponseAffinity implements ResponseIdSink {

    /** Ids remembered at most: ~150 bytes each. */
    public static final int DEFAULT_MAX_ENTRIES = 100_000;
    /** A day: conversations resumed later most likely find their engine restarted or the response evicted. */
    public static final Duration DEFAULT_TTL = Duration.ofHours(24);

    private record StoredAt(String workerUrl, long touchedNanos) {
    }

    private final int maxEntries;
    private final long ttlNanos;
    private final LongSupplier nanoTime;
    private final LinkedHashMap<String, StoredAt> byId;
    private volatile BiConsumer<String, String> stored = (id, url) -> { };

    /**
     * @param maxEntries ids remembered at most (&gt;= 1)
     * @param ttl        how long an id is remembered after its last use (&gt; 0)
     * @param nanoTime   the monotonic clock ({@code System::nanoTime}; a fake one in tests)
     */
    public ResponseAffinity(int maxEntries, Duration ttl, LongSupplier nanoTime) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be >= 1, was " + maxEntries);
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be > 0, was " + ttl);
        }
        this.maxEntries = maxEntries;
        this.ttlNanos = ttl.toNanos();
        this.nanoTime = nanoTime;
        this.byId = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, StoredAt> eldest) {
                return size() > ResponseAffinity.this.maxEntries;
            }
        };
    }

    /** Remembers that {@code worker} stored response {@code responseId}, and tells the {@link #onStored} listener. */
    @Override
    public void onResponseId(String responseId, Worker worker) {
        remember(responseId, worker.url());
        stored.accept(responseId, worker.url());
    }

    /** Remembers that the worker at {@code workerUrl} stored {@code responseId} (a peer replica's id), quietly. */
    public void remember(String responseId, String workerUrl) {
        synchronized (byId) {
            byId.put(responseId, new StoredAt(workerUrl, nanoTime.getAsLong()));
        }
    }

    /** The one listener told of every id this replica's workers store (id, worker URL), on the request's thread. */
    public void onStored(BiConsumer<String, String> listener) {
        this.stored = listener;
    }

    /** The URL of the worker that stored {@code responseId}, or null when unknown or expired. */
    public String workerOf(String responseId) {
        long now = nanoTime.getAsLong();
        synchronized (byId) {
            StoredAt e = byId.get(responseId);
            if (e == null) {
                return null;
            }
            if (now - e.touchedNanos() >= ttlNanos) {
                byId.remove(responseId);
                return null;
            }
            byId.put(responseId, new StoredAt(e.workerUrl(), now));
            return e.workerUrl();
        }
    }

    /** Ids remembered now (expired ones included until looked up or pushed out). */
    public int size() {
        synchronized (byId) {
            return byId.size();
        }
    }
}
