package dev.caravan.bench.synccost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the replicas' {@code caravan_sync_*} samples say about one measured window: the decision-visibility lag (the
 * sync module's {@code caravan_sync_lag_seconds{channel="decisions"}}: from the decision on one replica, on the cluster
 * clock, to its entry in another replica's fleet prefix index, the publish interval included) and the sync messages
 * applied. Quantiles are each replica's own (Micrometer's two-minute decaying window at the end of the run); the mean
 * and the counts are the window's exactly, from the counters' growth between {@code before} and {@code after}.
 *
 * @param lagP50Ms       the median over replicas of their p50, in ms; null without a decision applied
 * @param lagP99Ms       the highest of the replicas' p99, in ms; null without a decision applied
 * @param lagMeanMs      the mean over every decision applied in the window, in ms; null without one
 * @param decisions      decisions applied by the replicas in the window (each counted once per replica applying it)
 * @param loadReports    load reports applied by the replicas in the window
 * @param decisionBatches decision batches (topic messages) applied by the replicas in the window
 */
record SyncSamples(Double lagP50Ms, Double lagP99Ms, Double lagMeanMs, long decisions, long loadReports,
                   long decisionBatches) {

    static final String LAG = "caravan_sync_lag_seconds";
    static final String RECEIVED = "caravan_sync_messages_received_total";
    private static final String DECISIONS = "{channel=\"decisions\"";

    /** No sync, or no samples. */
    static final SyncSamples NONE = new SyncSamples(null, null, null, 0, 0, 0);

    /**
     * The window's figures from each replica's samples at its start ({@code before}) and end ({@code after}), in
     * replica order; a replica without samples (sync off, or unreadable) adds nothing.
     */
    static SyncSamples of(List<Map<String, Double>> before, List<Map<String, Double>> after) {
        if (before.size() != after.size()) {
            throw new IllegalArgumentException("samples of " + before.size() + " replicas before, " + after.size()
                    + " after");
        }
        List<Double> p50 = new ArrayList<>();
        double p99 = Double.NaN;
        double sum = 0;
        long count = 0;
        long loads = 0;
        long batches = 0;
        for (int i = 0; i < after.size(); i++) {
            Map<String, Double> a = after.get(i);
            Map<String, Double> b = before.get(i);
            Double q50 = quantile(a, "0.5");
            Double q99 = quantile(a, "0.99");
            long n = Math.round(grown(a, b, LAG + "_count" + DECISIONS + "}"));
            if (q50 != null && n > 0) {
                p50.add(q50 * 1000);
            }
            if (q99 != null && n > 0) {
                p99 = Double.isNaN(p99) ? q99 * 1000 : Math.max(p99, q99 * 1000);
            }
            count += n;
            sum += grown(a, b, LAG + "_sum" + DECISIONS + "}");
            loads += Math.round(grown(a, b, RECEIVED + "{channel=\"loads\"}"));
            batches += Math.round(grown(a, b, RECEIVED + DECISIONS + "}"));
        }
        return new SyncSamples(p50.isEmpty() ? null : median(p50), Double.isNaN(p99) ? null : p99,
                count == 0 ? null : sum * 1000 / count, count, loads, batches);
    }

    private static Double quantile(Map<String, Double> samples, String q) {
        return samples.get(LAG + DECISIONS + ",quantile=\"" + q + "\"}");
    }

    private static double grown(Map<String, Double> after, Map<String, Double> before, String key) {
        return after.getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0);
    }

    /** The median; the mean of the middle two for an even count. */
    static double median(List<Double> values) {
        List<Double> v = values.stream().sorted().toList();
        int m = v.size() / 2;
        return v.size() % 2 == 1 ? v.get(m) : (v.get(m - 1) + v.get(m)) / 2;
    }
}
