package dev.caravan.bench.soak;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A soak's settings.
 *
 * @param duration     how long the load runs (faults are injected until {@code cooldown} before its end)
 * @param seed         seeds the arrivals, the request mix and the fault schedule (order, targets, gaps)
 * @param ratePerSecond mean requests per second (Poisson arrivals), alternating over the two replicas
 * @param engines      simulated engines
 * @param timeScale    the engines' simulated seconds per wall second
 * @param warmup       load before the first fault and the baseline sample of heap and threads
 * @param cooldown     load after the last fault's recovery before the run ends
 * @param hold         how long each fault lasts before its recovery
 * @param gapMin       the shortest pause between one fault's agreement and the next fault
 * @param gapMax       the longest such pause (each pause is drawn uniformly between the two)
 * @param grace        how long after a fault's recovery its failures still count as caused by it
 * @param agreeLimit   how long after a recovery the replicas may take to agree again (the run's criterion)
 * @param sampleEvery  the period of heap-after-GC and thread samples
 * @param maxCycles    cycles of the fault schedule at most (each cycle injects every fault once)
 * @param workDir      the tenants file and the replicas' logs
 */
public record SoakOptions(Duration duration, long seed, double ratePerSecond, int engines, double timeScale,
                          Duration warmup, Duration cooldown, Duration hold, Duration gapMin, Duration gapMax,
                          Duration grace, Duration agreeLimit, Duration sampleEvery, int maxCycles, Path workDir) {

    public static final int DEFAULT_ENGINES = 8;
    public static final double DEFAULT_RATE = 6;
    public static final double DEFAULT_TIME_SCALE = 2;
    public static final Duration AGREE_LIMIT = Duration.ofSeconds(30);

    public SoakOptions {
        if (duration.compareTo(warmup.plus(cooldown)) <= 0) {
            throw new IllegalArgumentException("the soak must run longer than warm-up plus cool-down ("
                    + warmup.plus(cooldown).toSeconds() + " s), was " + duration.toSeconds() + " s");
        }
        if (engines < 2) {
            throw new IllegalArgumentException("engines must be >= 2, was " + engines);
        }
        if (ratePerSecond <= 0) {
            throw new IllegalArgumentException("rate must be > 0, was " + ratePerSecond);
        }
    }

    /**
     * The schedule for a run of {@code minutes}: runs of five minutes or less (the IT's mode) run one cycle, holding
     * each fault 4 s with 2-4 s between faults; longer runs cycle until the duration is over, hold 10 s with 15-45 s
     * between, and sample every minute.
     */
    public static SoakOptions forMinutes(double minutes, long seed, Path workDir) {
        Duration duration = Duration.ofMillis(Math.round(minutes * 60_000));
        boolean quick = minutes <= 5;
        return new SoakOptions(duration, seed, DEFAULT_RATE, DEFAULT_ENGINES, DEFAULT_TIME_SCALE,
                Duration.ofSeconds(quick ? 20 : 60), Duration.ofSeconds(quick ? 10 : 30),
                Duration.ofSeconds(quick ? 4 : 10), Duration.ofSeconds(quick ? 2 : 15),
                Duration.ofSeconds(quick ? 4 : 45), Duration.ofSeconds(15), AGREE_LIMIT,
                Duration.ofSeconds(quick ? 20 : 60), quick ? 1 : Integer.MAX_VALUE, workDir);
    }
}
