package dev.caravan.processors.flow;

/**
 * A tenant's requests-per-minute budget shared by the gateway's replicas, which {@link TenantRateLimiter} asks after
 * the tenant's own buckets have allowed a request. Replica sync provides one (per-replica leases from a shared
 * counter); without it every replica limits alone ({@link #NONE}).
 *
 * <p>Called on the request's thread (an event loop) under the tenant's lock: an implementation never blocks and never
 * waits for another replica; whatever it needs from them it fetches in the background. A request that finds the
 * replica's share spent while more is on its way gets {@link #PENDING}: it may wait for that answer
 * ({@link #whenAnswered}, without holding a thread) and ask again.
 */
@FunctionalInterface
public interface FleetBudget {

    /** No fleet budget: every request passes here and the local buckets decide alone. */
    FleetBudget NONE = tenant -> 0;

    /** {@link #takeRequest}'s answer when this replica's share is spent and more is on its way. */
    long PENDING = -1;

    /** The wait a request that cannot wait for {@link #PENDING} more is told. */
    long PENDING_RETRY_MILLIS = 1000;

    /**
     * Takes one request of the tenant's fleet-wide budget (the tenant has a requests-per-minute limit).
     *
     * @return 0 when taken, or when the fleet's budget cannot be reached (the local buckets then decide alone);
     *         {@link #PENDING} when more of the budget is on its way; otherwise the milliseconds until one request may
     *         pass, and the request is refused
     */
    long takeRequest(Tenant tenant);

    /**
     * Runs {@code then} once the call that made {@link #takeRequest} answer {@link #PENDING} has answered (at once when
     * none is in flight), on whichever thread receives the answer.
     */
    default void whenAnswered(Tenant tenant, Runnable then) {
        then.run();
    }
}
