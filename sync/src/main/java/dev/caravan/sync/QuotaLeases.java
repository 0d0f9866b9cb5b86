package dev.caravan.sync;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.flow.FleetBudget;
import dev.caravan.processors.flow.Tenant;
import dev.caravan.processors.flow.TenantLimits;

/**
 * Fleet-wide requests-per-minute quotas as per-replica leases: a tenant's budget is one token bucket shared by the
 * replicas (an entry of a Hazelcast map, changed only by {@link TakeQuotaLease} on its partition owner), and each
 * replica admits against a slice of it leased ahead of time, so the request path never waits for the fleet.
 *
 * <ul>
 *   <li>A request takes a unit of the replica's lease. When the lease falls to half a slice, a new slice is asked for
 *   in the background; a slice is the limit divided by the number of members (at least 1).</li>
 *   <li>A replica without units and without a call in flight admits the request on credit: the unit is charged to the
 *   shared bucket (into debt if need be) with the call that asks for the next slice. While that call is in flight a
 *   request gets {@link #PENDING} and may wait for its answer ({@link #whenAnswered}); while the bucket's last answer
 *   said it was empty, requests are refused with the time until a unit refills.</li>
 *   <li>A lease's units are usable for {@link #LEASE_MILLIS}; the ones left then go back to the bucket
 *   ({@link #sweep}, or the next call), so an idle replica holds no budget from the past.</li>
 * </ul>
 * Every admitted request is charged to the shared bucket, so within any window of W ms the fleet admits at most the
 * limit, plus what refills in W + {@link #LEASE_MILLIS}, plus one credit per replica.
 *
 * <p>Failure: a call that fails or takes longer than {@link #CALL_TIMEOUT_MS} (the member is partitioned off, shutting
 * down) is logged and counted ({@code caravan_sync_failures_total{channel="quota-leases"}}), and for
 * {@link #ALONE_MILLIS} this replica lets every request through here: its local buckets, which the peers' reported
 * usage still charges when it arrives, decide alone, as without leases. The next request after that tries again.
 *
 * <p>Thread-safe: one lock per tenant, held for a few field updates; answers arrive on Hazelcast's threads.
 */
final class QuotaLeases implements FleetBudget {

    private static final Logger LOG = LoggerFactory.getLogger(QuotaLeases.class);

    /** How long a leased unit may be used; those left after it go back to the shared bucket. */
    static final long LEASE_MILLIS = 1000;
    /** Longest wait for the shared bucket's answer; beyond it the call counts as failed. */
    static final long CALL_TIMEOUT_MS = 1000;
    /** How long this replica limits alone after a failed call. */
    static final long ALONE_MILLIS = 5000;

    /** The shared buckets: {@link TakeQuotaLease} on a tenant's entry, answered {@code [granted, millis until one]}. */
    @FunctionalInterface
    interface SharedBuckets {
        CompletionStage<long[]> take(String tenant, long limit, long charge, long want);
    }

    private final SharedBuckets buckets;
    private final IntSupplier members;
    private final LongSupplier clock;
    private final Runnable onFailure;
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private volatile long aloneUntil = Long.MIN_VALUE;
    private volatile boolean alone;

    /**
     * @param members   the fleet's member count now (slices are the limit divided by it)
     * @param clock     monotonic milliseconds
     * @param onFailure counts a failed call
     */
    QuotaLeases(SharedBuckets buckets, IntSupplier members, LongSupplier clock, Runnable onFailure) {
        this.buckets = buckets;
        this.members = members;
        this.clock = clock;
        this.onFailure = onFailure;
    }

    @Override
    public long takeRequest(Tenant tenant) {
        long limit = tenant.limits().requestsPerMinute();
        if (limit == TenantLimits.UNLIMITED) {
            return 0;
        }
        long now = clock.getAsLong();
        if (now < aloneUntil) {
            return 0;
        }
        Lease l = leases.computeIfAbsent(tenant.name(), n -> new Lease());
        synchronized (l) {
            if (l.limit != limit) { // first use, or the tenants file changed the limit: the old units are void
                l.limit = limit;
                l.units = 0;
                l.returning = 0;
                l.emptyUntil = Long.MIN_VALUE;
            }
            expire(l, now);
            if (l.units > 0) {
                l.units--;
                if (l.units <= slice(limit) / 2 && !l.inFlight) {
                    call(tenant.name(), l, 0, slice(limit));
                }
                return 0;
            }
            if (l.inFlight) {
                return PENDING;
            }
            if (now < l.emptyUntil) {
                return l.emptyUntil - now;
            }
            call(tenant.name(), l, 1, slice(limit)); // this request on credit
            return 0;
        }
    }

    @Override
    public void whenAnswered(Tenant tenant, Runnable then) {
        Lease l = leases.get(tenant.name());
        if (l != null) {
            synchronized (l) {
                if (l.inFlight) {
                    l.waiters.add(then);
                    return;
                }
            }
        }
        then.run();
    }

    /** Gives the units of expired leases back to the shared buckets (a timer calls it every {@link #LEASE_MILLIS}). */
    void sweep() {
        long now = clock.getAsLong();
        leases.forEach((tenant, l) -> {
            synchronized (l) {
                expire(l, now);
                if (l.returning > 0 && !l.inFlight && now >= aloneUntil) {
                    call(tenant, l, 0, 0);
                }
            }
        });
    }

    /** Units leased to this replica now, for tests. */
    long units(String tenant) {
        Lease l = leases.get(tenant);
        if (l == null) {
            return 0;
        }
        synchronized (l) {
            return l.units;
        }
    }

    private static void expire(Lease l, long now) {
        if (l.units > 0 && now >= l.expiresAt) {
            l.returning += l.units;
            l.units = 0;
        }
    }

    private long slice(long limit) {
        int n = Math.max(1, members.getAsInt());
        return Math.max(1, (limit + n - 1) / n);
    }

    /** Charges {@code credit} minus the units being returned and asks for {@code want} more; under the lease's lock. */
    private void call(String tenant, Lease l, long credit, long want) {
        long limit = l.limit;
        long returned = l.returning;
        l.returning = 0;
        l.inFlight = true;
        CompletionStage<long[]> answer;
        try {
            answer = buckets.take(tenant, limit, credit - returned, want);
        } catch (RuntimeException e) { // the member is shutting down
            answered(tenant, l, limit, null, e);
            return;
        }
        answer.toCompletableFuture().orTimeout(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .whenComplete((r, e) -> answered(tenant, l, limit, r, e));
    }

    private void answered(String tenant, Lease l, long limit, long[] result, Throwable failure) {
        List<Runnable> waiting;
        synchronized (l) {
            settle(tenant, l, limit, result, failure);
            waiting = List.copyOf(l.waiters);
            l.waiters.clear();
        }
        waiting.forEach(Runnable::run);
    }

    /** Takes the answer of the call in flight; under the lease's lock. */
    private void settle(String tenant, Lease l, long limit, long[] result, Throwable failure) {
        long now = clock.getAsLong();
        l.inFlight = false;
        if (failure != null || result == null || result.length != 2) {
            onFailure.run();
            aloneUntil = now + ALONE_MILLIS;
            if (!alone) {
                alone = true;
                LOG.warn("Sync: the fleet's quota budget for tenant '{}' did not answer ({}); this replica limits "
                        + "tenants alone for {} ms", tenant, failure, ALONE_MILLIS);
            }
            return;
        }
        if (alone) {
            alone = false;
            LOG.info("Sync: the fleet's quota budgets answer again; tenants' request limits hold for the fleet");
        }
        if (l.limit != limit) {
            return; // the limit changed while the call was in flight: its units belong to the old budget
        }
        if (result[0] > 0) {
            l.units += result[0];
            l.expiresAt = now + LEASE_MILLIS;
            l.emptyUntil = Long.MIN_VALUE;
        } else {
            l.emptyUntil = now + Math.max(1, result[1]);
        }
    }

    /** One tenant's lease on this replica; guarded by itself. */
    private static final class Lease {
        long limit = TenantLimits.UNLIMITED;
        long units;
        long expiresAt;
        /** Expired units not yet given back. */
        long returning;
        long emptyUntil = Long.MIN_VALUE;
        boolean inFlight;
        /** Requests waiting for the call in flight. */
        final List<Runnable> waiters = new ArrayList<>();
    }
}
