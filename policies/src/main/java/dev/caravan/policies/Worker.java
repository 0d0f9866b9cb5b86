package dev.caravan.policies;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One inference engine replica the gateway can route to.
 *
 * <p>Identity and placement ({@link #id()}, {@link #url()}, {@link #role()}, {@link #modelId()}, bootstrap port, KV-event
 * endpoints, data-parallel rank) are fixed at construction. A worker that is one data-parallel rank of an engine
 * ({@code --dp-aware}) has SGLang's URL {@code http://host:port@rank}: its {@link #target()} is the engine's, and
 * requests sent to it are pinned to its rank ({@link #dataParallelRank()}). Administrative attributes that {@code PUT /workers/{id}} may change (priority,
 * cost, labels, API key) are volatile. Runtime state is lock-free and safe to read from any request thread:
 * <ul>
 *   <li>{@link #isHealthy()}: flipped by the health checker (with hysteresis) or the admin API;</li>
 *   <li>{@link #load()}: in-flight requests as the policies see them: this gateway's ({@link #localLoad()}, changed
 *       only through {@link #acquire()} / {@link WorkerLease#release()}, so every policy sees the same numbers) plus,
 *       with replica sync, the other replicas' latest reported counts ({@link #peerLoad()}, 0 otherwise);</li>
 *   <li>{@link #processed()}: monotonically increasing count of selections (SGLang's tie-breaker);</li>
 *   <li>{@link #engineLoad()}: the engine's own last reported load, or null before the first poll;</li>
 *   <li>an availability gate (the per-worker circuit breaker) that {@link #isAvailable()} consults.</li>
 * </ul>
 */
public final class Worker {

    /** SGLang's default priority for a worker registered without one. */
    public static final int DEFAULT_PRIORITY = 50;
    /** SGLang's default cost. */
    public static final double DEFAULT_COST = 1.0;
    /** The model key used when a worker or request names no model (SGLang's {@code UNKNOWN_MODEL_ID}). */
    public static final String UNKNOWN_MODEL_ID = "unknown";
    /** SGLang's data-parallel worker URL: the engine's URL, {@code @}, the rank. */
    private static final Pattern RANKED_URL = Pattern.compile("(.+)@(\\d{1,4})");

    private final String id;
    private final String url;
    private final WorkerUrl target;
    private final WorkerRole role;
    private final String modelId;
    private final Integer bootstrapPort;
    private final String kvEventsEndpoint;
    private final String kvReplayEndpoint;
    private final Integer dataParallelRank;
    private volatile int dataParallelSize;
    private final boolean dataParallelSizeDeclared;

    private volatile EngineRuntime runtime;
    private volatile int priority;
    private volatile double cost;
    private volatile Map<String, String> labels;
    private volatile String apiKey;
    private volatile WorkerHealthCheck healthCheck;

    private final AtomicBoolean healthy = new AtomicBoolean(true);
    private final AtomicInteger load = new AtomicInteger();
    private volatile int peerLoad;
    private final AtomicLong processed = new AtomicLong();
    private volatile EngineLoad engineLoad;
    private volatile BooleanSupplier availabilityGate = () -> true;

    private Worker(Builder b) {
        this.target = WorkerUrl.parse(b.url);
        if (b.dataParallelSize != null && b.dataParallelSize < 1) {
            throw new IllegalArgumentException("dp_size must be >= 1, was " + b.dataParallelSize);
        }
        if (b.dataParallelRank != null && (b.dataParallelSize == null || b.dataParallelRank < 0
                || b.dataParallelRank >= b.dataParallelSize)) {
            throw new IllegalArgumentException("data-parallel rank must be in [0, " + b.dataParallelSize + "), was "
                    + b.dataParallelRank);
        }
        this.dataParallelRank = b.dataParallelRank;
        this.dataParallelSize = b.dataParallelSize == null ? 1 : b.dataParallelSize;
        this.dataParallelSizeDeclared = b.dataParallelSize != null;
        this.url = dataParallelRank == null ? target.url() : target.url() + "@" + dataParallelRank;
        this.runtime = b.runtime;
        this.id = b.id != null ? b.id : UUID.randomUUID().toString();
        this.role = Objects.requireNonNull(b.role, "role");
        this.modelId = normalizeModel(b.modelId);
        if (b.bootstrapPort != null && (b.bootstrapPort < 1 || b.bootstrapPort > 65535)) {
            throw new IllegalArgumentException("bootstrap_port must be in [1,65535], was " + b.bootstrapPort);
        }
        this.bootstrapPort = b.bootstrapPort;
        this.kvEventsEndpoint = emptyToNull(b.kvEventsEndpoint);
        this.kvReplayEndpoint = emptyToNull(b.kvReplayEndpoint);
        this.priority = b.priority;
        this.cost = b.cost;
        this.labels = Map.copyOf(b.labels);
        this.apiKey = emptyToNull(b.apiKey);
        this.healthCheck = Objects.requireNonNull(b.healthCheck, "healthCheck");
    }

    public static Builder builder(String url) {
        return new Builder(url);
    }

    /**
     * The normalised form of a worker URL (scheme lower-case, no trailing slash), validated by {@link WorkerUrl}: the
     * message of the {@link IllegalArgumentException} names the URL and the rule it broke. A data-parallel rank's URL
     * ({@code http://host:8000@1}) keeps its rank.
     */
    public static String normalizeUrl(String url) {
        Matcher m = url == null ? null : RANKED_URL.matcher(url.trim());
        if (m != null && m.matches()) {
            return WorkerUrl.parse(m.group(1)).url() + "@" + Integer.parseInt(m.group(2));
        }
        return WorkerUrl.parse(url).url();
    }

    /** Maps a null or blank model id to {@link #UNKNOWN_MODEL_ID}, as SGLang does. */
    public static String normalizeModel(String model) {
        return model == null || model.isBlank() ? UNKNOWN_MODEL_ID : model.trim();
    }

    private static String emptyToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    public String id() { return id; }
    public String url() { return url; }
    public WorkerRole role() { return role; }
    public String modelId() { return modelId; }
    /** Prefill workers' KV bootstrap port, or null (sent to engines as JSON null). */
    public Integer bootstrapPort() { return bootstrapPort; }
    /** ZeroMQ endpoint of the engine's KV-event PUB socket, or null when it publishes none. */
    public String kvEventsEndpoint() { return kvEventsEndpoint; }
    /** ZeroMQ endpoint of the engine's KV-event replay ROUTER socket, or null. */
    public String kvReplayEndpoint() { return kvReplayEndpoint; }

    /**
     * Data-parallel ranks the engine runs (each with its own KV pool and KV-event publisher): as registered
     * ({@code dp_size}, or the size of the engine a rank worker belongs to), else as its server info reported, else 1.
     */
    public int dataParallelSize() { return dataParallelSize; }

    /** True when the registration declared {@link #dataParallelSize()} (the engine's report then does not change it). */
    public boolean dataParallelSizeDeclared() { return dataParallelSizeDeclared; }

    /** Records the DP size the engine reported; ignored when the registration declared one. */
    public void setDataParallelSize(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("data-parallel size must be >= 1, was " + size);
        }
        if (!dataParallelSizeDeclared) {
            this.dataParallelSize = size;
        }
    }

    /** The URL taken apart (host, port, TLS, path prefix): what every client of this worker connects to. */
    public WorkerUrl target() { return target; }

    /** The engine's URL: {@link #url()} without a data-parallel rank. */
    public String engineUrl() { return target.url(); }

    /** The data-parallel rank requests to this worker are pinned to, or null when it is a whole engine. */
    public Integer dataParallelRank() { return dataParallelRank; }

    /** The first engine rank requests to this worker may run on: its pinned rank, else 0. */
    public int firstRank() { return dataParallelRank == null ? 0 : dataParallelRank; }

    /**
     * The engine ranks requests to this worker may run on, from {@link #firstRank()}: 1 for a rank worker
     * ({@code --dp-aware}), else {@link #dataParallelSize()} (a policy such as kv_aware picks one of them).
     */
    public int rankCount() { return dataParallelRank == null ? dataParallelSize : 1; }

    /** The engine type, or null while neither set at registration nor detected. */
    public EngineRuntime runtime() { return runtime; }

    /** The engine type, or {@code fallback} while unknown. */
    public EngineRuntime runtimeOr(EngineRuntime fallback) {
        EngineRuntime r = runtime;
        return r != null ? r : fallback;
    }

    /** Records the engine type (detected after registration). */
    public void setRuntime(EngineRuntime runtime) { this.runtime = runtime; }

    /**
     * Host part of the URL as written (an IPv6 literal keeps its brackets), the value of {@code bootstrap_host} in P/D
     * mode, as SGLang's.
     */
    public String host() { return target.host(); }

    /** Port of the URL (the scheme default when absent). */
    public int port() { return target.port(); }

    public int priority() { return priority; }
    public void setPriority(int priority) { this.priority = priority; }
    public double cost() { return cost; }
    public void setCost(double cost) { this.cost = cost; }
    public Map<String, String> labels() { return labels; }
    public void setLabels(Map<String, String> labels) { this.labels = Map.copyOf(labels); }
    /** The key sent upstream instead of the client's, or null. Never log it. */
    public String apiKey() { return apiKey; }
    public void setApiKey(String apiKey) { this.apiKey = emptyToNull(apiKey); }
    /** This worker's own health-check settings (null components: the gateway's defaults). */
    public WorkerHealthCheck healthCheck() { return healthCheck; }
    public void setHealthCheck(WorkerHealthCheck healthCheck) {
        this.healthCheck = Objects.requireNonNull(healthCheck, "healthCheck");
    }

    public boolean isHealthy() { return healthy.get(); }

    /** Sets health; returns true when the value changed. */
    public boolean setHealthy(boolean value) {
        return healthy.getAndSet(value) != value;
    }

    /** Healthy and allowed by the availability gate (the circuit breaker): the router's pre-filter. */
    public boolean isAvailable() {
        return healthy.get() && availabilityGate.getAsBoolean();
    }

    /** Installs the gate {@link #isAvailable()} consults, normally {@code breaker::tryAcquirePermission}-like checks. */
    public void setAvailabilityGate(BooleanSupplier gate) {
        this.availabilityGate = Objects.requireNonNull(gate, "gate");
    }

    /**
     * Requests in flight on this worker: through this gateway, plus through the gateway's other replicas as they last
     * reported (replica sync; docs/design/replica-sync.md). What every policy's load reads.
     */
    public int load() { return load.get() + peerLoad; }

    /** Requests in flight on this worker through this gateway: its leases not yet released. */
    public int localLoad() { return load.get(); }

    /** The other replicas' in-flight requests on this worker as last reported; 0 without replica sync. */
    public int peerLoad() { return peerLoad; }

    /** Set by the replica sync from the other replicas' reports (never negative). */
    public void setPeerLoad(int requests) { this.peerLoad = Math.max(0, requests); }

    /** Takes one unit of in-flight load; release it through the returned lease. */
    public WorkerLease acquire() {
        return acquire(null);
    }

    /** Takes one unit of in-flight load; the lease runs {@code onRelease} (if not null) once, when released. */
    public WorkerLease acquire(Runnable onRelease) {
        return acquire(onRelease, null);
    }

    /**
     * Takes one unit of in-flight load; the lease runs {@code onFirstToken} (if not null) once, at
     * {@link WorkerLease#firstToken()} or at the latest when released, then {@code onRelease} (if not null) once.
     */
    public WorkerLease acquire(Runnable onRelease, Runnable onFirstToken) {
        load.incrementAndGet();
        return new WorkerLease(this, onRelease, onFirstToken);
    }

    void decrementLoad() {
        // Saturate at zero: a double release is prevented by the lease, this guards against anything else.
        load.getAndUpdate(v -> v > 0 ? v - 1 : 0);
    }

    public long processed() { return processed.get(); }
    public void incrementProcessed() { processed.incrementAndGet(); }

    /** The engine's last reported load, or null before the first successful poll. */
    public EngineLoad engineLoad() { return engineLoad; }
    public void setEngineLoad(EngineLoad engineLoad) { this.engineLoad = engineLoad; }

    @Override
    public String toString() {
        // The API key is deliberately absent.
        return "Worker{" + url + ", role=" + role.wireName() + ", model=" + modelId + ", id=" + id + "}";
    }

    /** Builder; only {@code url} is required. */
    public static final class Builder {
        private final String url;
        private String id;
        private WorkerRole role = WorkerRole.REGULAR;
        private String modelId;
        private Integer bootstrapPort;
        private String kvEventsEndpoint;
        private String kvReplayEndpoint;
        private Integer dataParallelSize;
        private Integer dataParallelRank;
        private int priority = DEFAULT_PRIORITY;
        private double cost = DEFAULT_COST;
        private Map<String, String> labels = Map.of();
        private String apiKey;
        private WorkerHealthCheck healthCheck = WorkerHealthCheck.DEFAULTS;
        private EngineRuntime runtime;

        private Builder(String url) { this.url = url; }

        public Builder id(String id) { this.id = id; return this; }
        public Builder role(WorkerRole role) { this.role = role; return this; }
        public Builder modelId(String modelId) { this.modelId = modelId; return this; }
        public Builder bootstrapPort(Integer port) { this.bootstrapPort = port; return this; }
        public Builder kvEventsEndpoint(String endpoint) { this.kvEventsEndpoint = endpoint; return this; }
        public Builder kvReplayEndpoint(String endpoint) { this.kvReplayEndpoint = endpoint; return this; }
        /** The engine's data-parallel size as declared at registration; null = learn it from the engine. */
        public Builder dataParallelSize(Integer size) { this.dataParallelSize = size; return this; }
        public Builder priority(int priority) { this.priority = priority; return this; }
        public Builder cost(double cost) { this.cost = cost; return this; }
        public Builder labels(Map<String, String> labels) { this.labels = labels; return this; }
        public Builder apiKey(String apiKey) { this.apiKey = apiKey; return this; }
        public Builder healthCheck(WorkerHealthCheck healthCheck) { this.healthCheck = healthCheck; return this; }
        /** The engine type, when known at registration ({@code runtime} in {@code POST /workers}). */
        public Builder runtime(EngineRuntime runtime) { this.runtime = runtime; return this; }

        /** Makes this worker rank {@code rank} of {@code size} of the engine at the URL ({@code --dp-aware}). */
        public Builder dataParallelRank(int rank, int size) {
            this.dataParallelRank = rank;
            this.dataParallelSize = size;
            return this;
        }

        /**
         * A builder for the same engine with the same settings (role, model, keys, labels, health checks, runtime,
         * bootstrap port, KV-event endpoints — rank 0's, as the engine was registered; not the id, the rank or the
         * data-parallel size).
         */
        public static Builder copyOf(Worker w) {
            return new Builder(w.engineUrl()).role(w.role).modelId(w.modelId.equals(UNKNOWN_MODEL_ID) ? null : w.modelId)
                    .bootstrapPort(w.bootstrapPort).priority(w.priority).cost(w.cost).labels(w.labels).apiKey(w.apiKey)
                    .healthCheck(w.healthCheck).runtime(w.runtime).kvEventsEndpoint(w.kvEventsEndpoint)
                    .kvReplayEndpoint(w.kvReplayEndpoint);
        }

        public Worker build() { return new Worker(this); }
    }
}
