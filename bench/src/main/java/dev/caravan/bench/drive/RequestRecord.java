package dev.caravan.bench.drive;

/**
 * What happened to one request: times (wall-clock {@link System#nanoTime()} readings in the HTTP driver; simulated
 * nanoseconds in the what-if replay), the engine that served it and what the engine reported in {@code usage}.
 * Written by one thread at a time (the sender, then the connection's event loop), read after the run.
 */
public final class RequestRecord {

    /** Send order, from 0. */
    public final long seq;
    /** Sent during the warm-up, so left out of the statistics. */
    public final boolean warmup;
    /** When the workload scheduled it (simulated ns from the start). */
    public final long scheduledVirtualNanos;
    /** Wall time it was due at. */
    public final long dueNanos;
    /** Ideal reusable tokens ({@link ReuseTracker}) and the workload's designated prefix tokens. */
    public final int reusableTokens;
    public final int prefixTokens;
    /** The {@code X-SMG-Routing-Key} sent (tenant or session), or null. */
    public final String routingKey;
    /** Which of the driver's base URLs (gateway replica) it was sent to, from 0. */
    public final int replica;

    public volatile long sentNanos;
    public volatile long firstTokenNanos = -1;
    public volatile long doneNanos = -1;
    /** HTTP status, 0 for a transport error or timeout. */
    public volatile int status;
    public volatile String error;
    /** Serving engine's name (index for simulated engines), or null when unknown. */
    public volatile String engine;
    public volatile int promptTokens;
    public volatile int cachedTokens;
    public volatile int completionTokens;
    /** The gateway's {@code X-Caravan-Decision} header (policy/branch), or null behind other balancers. */
    public volatile String decision;
    /** Tokens one pooled cache of the fleet's capacity would have served: under LRU, under Belady (set after the run). */
    public volatile int pooledLruTokens;
    public volatile int beladyTokens;

    public RequestRecord(long seq, boolean warmup, long scheduledVirtualNanos, long dueNanos, int reusableTokens,
                         int prefixTokens, String routingKey, int replica) {
        this.seq = seq;
        this.warmup = warmup;
        this.scheduledVirtualNanos = scheduledVirtualNanos;
        this.dueNanos = dueNanos;
        this.reusableTokens = reusableTokens;
        this.prefixTokens = prefixTokens;
        this.routingKey = routingKey;
        this.replica = replica;
    }

    /** Completed with a 200 and a usage report. */
    public boolean ok() {
        return status == 200 && error == null && doneNanos >= 0;
    }
}
