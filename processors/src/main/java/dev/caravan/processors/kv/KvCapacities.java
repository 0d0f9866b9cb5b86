package dev.caravan.processors.kv;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.caravan.policies.Worker;

/**
 * The KV capacity each worker's engine reported, and when to ask again. A worker is asked as soon as it is seen
 * (the {@code kv-capacity} timer ticks every second), every {@link #RETRY_INTERVAL} while it has not answered (an engine
 * still loading, a vLLM without {@code /get_server_info} answering only through {@code /metrics}), and every
 * {@link #REFRESH_INTERVAL} after (an engine restarted with another {@code --gpu-memory-utilization}).
 *
 * <p>Thread-safe: planned and recorded from the control timer's thread, read from KV-event threads.
 */
public final class KvCapacities {

    /** How often a worker without a known capacity is asked. */
    public static final Duration RETRY_INTERVAL = Duration.ofSeconds(5);
    /** How often a known capacity is re-read. */
    public static final Duration REFRESH_INTERVAL = Duration.ofSeconds(60);

    private record Entry(KvCapacity capacity, long askedAtNanos) {
    }

    private final Map<String, Entry> byWorker = new ConcurrentHashMap<>();

    /** The workers to ask now; each is marked as asked at {@code nowNanos}. */
    public List<Worker> due(Collection<Worker> workers, long nowNanos) {
        List<Worker> out = new ArrayList<>();
        for (Worker w : workers) {
            Entry e = byWorker.get(w.id());
            long wait = e == null ? 0 : (e.capacity == null ? RETRY_INTERVAL : REFRESH_INTERVAL).toNanos();
            if (e == null || nowNanos - e.askedAtNanos >= wait) {
                byWorker.put(w.id(), new Entry(e == null ? null : e.capacity, nowNanos));
                out.add(w);
            }
        }
        return out;
    }

    /** Records what the worker's engine reported (null: it said nothing usable; a known value is kept). */
    public void record(String workerId, KvCapacity capacity) {
        if (capacity != null) {
            byWorker.compute(workerId, (id, e) -> new Entry(capacity, e == null ? 0 : e.askedAtNanos));
        }
    }

    /** The worker's reported capacity, or null. */
    public KvCapacity capacity(String workerId) {
        Entry e = byWorker.get(workerId);
        return e == null ? null : e.capacity;
    }

    /** The engine's block size when it reported one, else {@code fallback}. */
    public int blockSize(String workerId, int fallback) {
        KvCapacity c = capacity(workerId);
        return c != null && c.blockSize() > 0 ? c.blockSize() : fallback;
    }

    /** Every known capacity by worker id (a snapshot). */
    public Map<String, KvCapacity> known() {
        Map<String, KvCapacity> out = new java.util.HashMap<>();
        byWorker.forEach((id, e) -> {
            if (e.capacity != null) {
                out.put(id, e.capacity);
            }
        });
        return out;
    }

    /** Forgets a worker that left. */
    public void forget(String workerId) {
        byWorker.remove(workerId);
    }
}
