package dev.caravan.bench.workload;

import java.util.SplittableRandom;

/** Arrival times of a Poisson process of a given rate (per simulated second), from a seeded generator. */
final class PoissonArrivals {

    private final double meanGapNanos;
    private final SplittableRandom random;
    private double now;

    PoissonArrivals(double ratePerSecond, SplittableRandom random) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("rate must be > 0, was " + ratePerSecond);
        }
        this.meanGapNanos = 1e9 / ratePerSecond;
        this.random = random;
    }

    /** The next arrival, nanoseconds from the start. */
    long next() {
        now += -Math.log(1.0 - random.nextDouble()) * meanGapNanos;
        return (long) now;
    }
}
