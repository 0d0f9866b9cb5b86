package dev.caravan.bench.soak;

import java.util.Set;

/**
 * The faults of the soak's schedule, each with what it does, what clients may see while it lasts (the failure causes
 * it is expected to produce, {@link Cause}), and whether those failures are confined to requests sent to the faulted
 * replica. A failure is attributed to a fault when it ends inside that fault's window (injection to recovery plus the
 * grace period) and its cause is one of the fault's; anything else is unattributed, i.e. a finding.
 */
enum FaultKind {

    /** An engine's server closes (streams on it are cut) and comes back on the same ports after the hold. */
    ENGINE_KILLED("engine killed and restarted",
            "streams on it end early or reset; unstarted attempts retry elsewhere",
            Set.of(Cause.CONNECTION_RESET, Cause.STREAM_TRUNCATED, Cause.STREAM_ERROR_EVENT, Cause.UPSTREAM_ERROR),
            false),
    /** An engine accepts requests and never answers them, then recovers. */
    ENGINE_HUNG("engine hung", "latency: an attempt on it idles out and retries elsewhere",
            Set.of(Cause.UPSTREAM_TIMEOUT, Cause.STREAM_ERROR_EVENT), false),
    /** An engine restarts at once: a new KV publisher whose sequence starts again, an empty cache. */
    KV_PUBLISHER_RESTARTED("KV publisher restarted (engine restart, sequence reset)",
            "streams on that engine end early or reset",
            Set.of(Cause.CONNECTION_RESET, Cause.STREAM_TRUNCATED, Cause.STREAM_ERROR_EVENT, Cause.UPSTREAM_ERROR),
            false),
    /** An engine sequences its KV events but does not send them live: a gap the gateway fills by replay. */
    KV_EVENTS_DROPPED("KV events dropped", "nothing", Set.of(), false),
    /** Replica 1 is SIGKILLed and started again after the hold (its sync member rejoins and pulls a snapshot). */
    REPLICA_KILLED("gateway replica killed and restarted",
            "requests on that replica are refused or reset until it is back",
            Set.of(Cause.CONNECTION_REFUSED, Cause.CONNECTION_RESET, Cause.STREAM_TRUNCATED), true),
    /** The sync links between the replicas are cut (each routes from local state), then healed. */
    PARTITION("partition between the replicas", "nothing", Set.of(), false),
    /** The tenants file is overwritten with a file that does not parse, then restored. */
    BAD_TENANTS_FILE("bad tenants file loaded", "nothing (the tenants before stay in force)", Set.of(), false),
    /** An engine is removed from both replicas (DELETE /workers/{id}) with streams in flight, then added again. */
    WORKER_DRAINED("worker drained with streams in flight", "nothing (in-flight streams finish)", Set.of(), false);

    private final String label;
    private final String clientEffect;
    private final Set<Cause> causes;
    private final boolean replicaScoped;

    FaultKind(String label, String clientEffect, Set<Cause> causes, boolean replicaScoped) {
        this.label = label;
        this.clientEffect = clientEffect;
        this.causes = causes;
        this.replicaScoped = replicaScoped;
    }

    String label() {
        return label;
    }

    /** What clients see while it lasts, in words (the docs' table). */
    String clientEffect() {
        return clientEffect;
    }

    /** The failure causes this fault may produce. */
    Set<Cause> causes() {
        return causes;
    }

    /** Whether its failures are confined to requests sent to the faulted replica. */
    boolean replicaScoped() {
        return replicaScoped;
    }
}
