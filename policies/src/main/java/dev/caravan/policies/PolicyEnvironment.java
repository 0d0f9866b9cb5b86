package dev.caravan.policies;

import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import dev.caravan.policies.fleet.Fleet;
import dev.caravan.policies.kv.KvGroundTruth;

/**
 * The time and randomness a policy may use; nothing in a policy reads the system clock or creates its own generator.
 *
 * @param nanoTime monotonic nanoseconds ({@link System#nanoTime()} scale): manual's idle TTL and bucket's sliding window
 *                 are measured with it. Tests pass a {@link ManualTicker}.
 * @param random   shared by every request thread, so it must be thread-safe: {@link #system()} uses a per-thread
 *                 {@link ThreadLocalRandom}; {@link #seeded(long)} a {@link Random} (synchronised internally, and
 *                 reproducible when one thread drives it, as in tests and the what-if replay)
 * @param kv       the KV-event ground truth (block index, parity self-check, tokenizers) for policies that route on
 *                 it ({@code kv_aware}), or null when the gateway consumes no KV events; set with {@link #withKv}
 * @param fleet    what the policies share with the gateway's other replicas (docs/design/replica-sync.md), or null when
 *                 it runs alone ({@code --sync none}); set with {@link #withFleet}
 */
public record PolicyEnvironment(LongSupplier nanoTime, RandomGenerator random, KvGroundTruth kv, Fleet fleet) {

    public PolicyEnvironment {
        Objects.requireNonNull(nanoTime, "nanoTime");
        Objects.requireNonNull(random, "random");
    }

    /** Time and randomness without KV ground truth or a fleet. */
    public PolicyEnvironment(LongSupplier nanoTime, RandomGenerator random) {
        this(nanoTime, random, null, null);
    }

    /** Time, randomness and KV ground truth, without a fleet. */
    public PolicyEnvironment(LongSupplier nanoTime, RandomGenerator random, KvGroundTruth kv) {
        this(nanoTime, random, kv, null);
    }

    /** A copy whose policies share this KV ground truth. */
    public PolicyEnvironment withKv(KvGroundTruth groundTruth) {
        return new PolicyEnvironment(nanoTime, random, Objects.requireNonNull(groundTruth, "groundTruth"), fleet);
    }

    /** A copy whose policies share their routing state with the gateway's other replicas. */
    public PolicyEnvironment withFleet(Fleet shared) {
        return new PolicyEnvironment(nanoTime, random, kv, Objects.requireNonNull(shared, "shared"));
    }

    /** Production: {@link System#nanoTime()} and thread-local randomness. */
    public static PolicyEnvironment system() {
        return new PolicyEnvironment(System::nanoTime, ThreadLocalRandomGenerator.INSTANCE);
    }

    /** System time with reproducible randomness. */
    public static PolicyEnvironment seeded(long seed) {
        return new PolicyEnvironment(System::nanoTime, new Random(seed));
    }

    /** Injected time and reproducible randomness, for tests. */
    public static PolicyEnvironment of(LongSupplier nanoTime, long seed) {
        return new PolicyEnvironment(nanoTime, new Random(seed));
    }

    public long nanos() {
        return nanoTime.getAsLong();
    }

    /**
     * Delegates every call to {@link ThreadLocalRandom#current()}: holding one {@code ThreadLocalRandom} instance and
     * using it from other threads is what its javadoc forbids, so this indirection is what makes a shared field safe.
     */
    private enum ThreadLocalRandomGenerator implements RandomGenerator {
        INSTANCE;

        @Override
        public long nextLong() {
            return ThreadLocalRandom.current().nextLong();
        }

        @Override
        public int nextInt() {
            return ThreadLocalRandom.current().nextInt();
        }

        @Override
        public int nextInt(int bound) {
            return ThreadLocalRandom.current().nextInt(bound);
        }

        @Override
        public double nextDouble() {
            return ThreadLocalRandom.current().nextDouble();
        }
    }
}
