package dev.caravan.bench.workload;

import java.util.Iterator;
import java.util.Map;

import dev.caravan.bench.report.AnalyticBounds;

/**
 * A benchmark workload: a deterministic (seeded) sequence of requests in simulated time, replayed identically for every
 * policy of one run.
 *
 * <p>{@link #arrivals()} is the open-loop part (arrival times fixed in advance, Poisson or a trace's timestamps);
 * {@link #followUp} adds closed-loop parts (the next turn of a chat is sent only after the previous answer arrived,
 * because it contains that answer). Implementations are immutable: every call to {@link #arrivals()} starts over.
 */
public interface Workload {

    /** Short name used in file names and tables ({@code b2b}, {@code multiturn}, ...). */
    String name();

    /** One line describing the workload with its parameters. */
    String description();

    /** The parameters, for the JSON report (insertion-ordered). */
    Map<String, Object> parameters();

    /** A fresh iterator over the open-loop arrivals, in arrival-time order. */
    Iterator<BenchRequest> arrivals();

    /**
     * The request that follows a completed one, or null.
     *
     * @param done        the completed request
     * @param output      the generated text (only when {@link #needsOutputText()})
     * @param doneAtNanos simulated time at which the answer completed
     */
    default BenchRequest followUp(BenchRequest done, String output, long doneAtNanos) {
        return null;
    }

    /** True when {@link #followUp} needs the generated text. */
    default boolean needsOutputText() {
        return false;
    }

    /** How many requests the workload will send (an estimate for the progress bar when turns depend on answers). */
    long expectedRequests();

    /** Requests sent first and left out of the statistics, unless the command line says otherwise. */
    int defaultWarmup();

    /** The engines' KV capacity this workload is designed for, in tokens, or 0 for the simulator's default. */
    default int kvCapacityTokens(int engines) {
        return 0;
    }

    /** The longest prompt plus output this workload sends, in tokens, or 0 when the simulator's limit suffices. */
    default int maxModelLen() {
        return 0;
    }

    /** The analytic model's hit rates for this workload ({@link AnalyticBounds}), or null when it has none. */
    default AnalyticBounds analytic(int engines, double prefillTokensPerSec) {
        return null;
    }
}
