package dev.caravan.bench.workload;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * The open-loop request sequences the workloads share: {@code count} requests built lazily in index order.
 *
 * <p>Requests are made one per {@link Iterator#next()} call, in order, so every seeded draw a maker takes happens in
 * request order and a workload replays identically for every policy. Not thread-safe, like any iterator.
 */
final class Arrivals {

    /** Salt of the tenant-pick generator, so its draws are independent of the arrival times drawn from the seed. */
    static final long PICKS_SALT = 0x5DEECE66DL;

    /** Builds the request of one arrival from its index, arrival time and tenant; may draw more from {@code picks}. */
    @FunctionalInterface
    interface TenantRequest {
        BenchRequest make(int index, long atNanos, int tenant, SplittableRandom picks);
    }

    private Arrivals() {
    }

    /** {@code count} requests, request {@code i} made by {@code make.apply(i)}. */
    static Iterator<BenchRequest> indexed(int count, IntFunction<BenchRequest> make) {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < count;
            }

            @Override
            public BenchRequest next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return make.apply(next++);
            }
        };
    }

    /**
     * {@code count} requests arriving as a Poisson process of {@code rate} per simulated second (drawn from
     * {@code seed}), each from a tenant drawn from {@code popularity} (with {@code seed ^ PICKS_SALT}).
     */
    static Iterator<BenchRequest> poissonTenants(double rate, int count, Popularity popularity, long seed,
                                                 TenantRequest make) {
        PoissonArrivals arrivals = new PoissonArrivals(rate, new SplittableRandom(seed));
        SplittableRandom picks = new SplittableRandom(seed ^ PICKS_SALT);
        return indexed(count, i -> {
            long at = arrivals.next();
            return make.make(i, at, popularity.sample(picks), picks);
        });
    }
}
