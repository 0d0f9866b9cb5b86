package dev.caravan.policies.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Worker;
import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * cache_aware's cache-pollution-aware placement ({@code --one-off-sink-share}; docs/design/pollution.md):
 * a cache miss predicted one-off by {@link ReusePredictor} goes to the least-loaded worker of the <em>sink</em>, the
 * share of the healthy workers first in URL order; any other miss goes to the least-loaded worker outside it. So prompts
 * that will not be reused evict each other on the sink, not the reusable prefixes the other workers hold.
 *
 * <p>Balance is kept: the steered choice stands only while its load is at most
 * {@code max(min + 1, min * balanceRelThreshold)}, {@code min} the least load of all (at Mooncake's one or two requests
 * per engine, one request more than the least); otherwise, or with fewer than two healthy workers, the caller's
 * least-loaded choice is used. (The guard's absolute threshold, 64 requests by default, let a first what-if run pile
 * 41 % of the requests on one sink engine.) While no miss among the last {@value ReusePredictor#WINDOW} hits and misses
 * was predicted one-off, the sink is not kept apart either: every miss goes to the caller's least-loaded choice, so
 * the option costs nothing on traffic without one-off prompts. (Counted in misses, that window outlived its cause where
 * misses are rare: b2b's few misses after warm-up still avoided the sink because of a prediction made at cold start.)
 *
 * <p>Every miss opens a fingerprint in the predictor and every hit or miss marks the one it continues, so the
 * prediction learns from the traffic whether the option steers or not.
 */
final class OneOffSink {

    /** A steered choice: the worker and its branch. */
    record Choice(Worker worker, String branch) {
    }

    private final double share;
    private final double rel;
    private final ReusePredictor predictor = new ReusePredictor();
    /** Hits and misses seen so far, and the count at the last miss predicted one-off (the sink idles without them). */
    private final AtomicLong decisions = new AtomicLong();
    private volatile long lastOneOff = Long.MIN_VALUE / 2;

    /**
     * @param share the sink's share of the healthy workers, in (0,1)
     * @param rel   the imbalance guard's relative threshold: a steered choice may carry at most
     *              {@code max(min + 1, min * rel)} requests, {@code min} the least load of all
     */
    OneOffSink(double share, double rel) {
        this.share = share;
        this.rel = rel;
    }

    /** Workers in the sink among {@code n} healthy ones: the rounded share, at least one, leaving one outside. */
    int sinkSize(int n) {
        return n < 2 ? 0 : (int) Math.max(1, Math.min(n - 1, Math.round(share * n)));
    }

    /** A hit matching {@code matchedCodePoints} of the prompt: marks the fresh prompt it continues, if any, reused. */
    void hit(String text, ApproximateRadixTree tree, int healthy, long matchedCodePoints) {
        decisions.incrementAndGet();
        int context = utf16(text, tree.sharedPrefixChars(text, healthy));
        predictor.continued(text, context, utf16(text, matchedCodePoints));
    }

    /**
     * Places a miss that matched {@code matchedCodePoints}: the steered worker and branch, or null to let the caller
     * choose the least loaded. The prompt marks the fresh prompt it continues, if any, and is recorded as fresh.
     */
    Choice miss(List<Worker> healthy, String text, ApproximateRadixTree tree, long matchedCodePoints,
                ToIntFunction<Worker> loadOf) {
        int context = utf16(text, tree.sharedPrefixChars(text, healthy.size()));
        predictor.continued(text, context, utf16(text, matchedCodePoints));
        boolean oneOff = predictor.oneOff(text, context);
        predictor.fresh(text, context);
        long now = decisions.incrementAndGet();
        if (oneOff) {
            lastOneOff = now;
        }
        int sink = sinkSize(healthy.size());
        if (sink == 0 || (!oneOff && now - lastOneOff > ReusePredictor.WINDOW)) {
            return null; // no one-off miss among the last window's decisions: nothing to keep apart
        }
        List<Worker> byUrl = healthy.stream().sorted((a, b) -> a.url().compareTo(b.url())).toList();
        List<Worker> side = oneOff ? byUrl.subList(0, sink) : byUrl.subList(sink, byUrl.size());
        Worker best = HealthyWorkers.minLoad(side, loadOf);
        int min = Integer.MAX_VALUE;
        for (Worker w : healthy) {
            min = Math.min(min, loadOf.applyAsInt(w));
        }
        if (best == null || loadOf.applyAsInt(best) > Math.max(min + 1.0, min * rel)) {
            return null;
        }
        return new Choice(best, oneOff ? Branches.CACHE_MISS_ONE_OFF : Branches.CACHE_MISS_REUSABLE);
    }

    /** UTF-16 units of the first {@code codePoints} code points of {@code text} (all of it when shorter). */
    private static int utf16(String text, long codePoints) {
        int cp = (int) Math.min(codePoints, text.codePointCount(0, text.length()));
        return text.offsetByCodePoints(0, cp);
    }
}
