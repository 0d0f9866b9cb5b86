package dev.caravan.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.caravan.bench.PolicySpec;
import dev.caravan.bench.drive.RequestRecord;

/**
 * Turns the request records of one run into a {@link PolicyResult}. Times in the records are in one clock (wall
 * nanoseconds for HTTP runs, simulated nanoseconds for what-if runs); {@code timeScale} converts them to simulated time.
 */
public final class ResultCalculator {

    private ResultCalculator() {
    }

    /**
     * What the run measured besides the records.
     *
     * @param gateways    gateway replicas behind the front
     * @param front       what alternated requests over them, or null for a single load balancer
     * @param syncMetrics per replica, its {@code caravan_sync_*} samples
     * @param qualityMetrics the gateway's {@code caravan_decision_*_total} and {@code caravan_shadow_*_total} samples,
     *                       summed over the replicas
     */
    public record RunWindow(double timeScale, double prefillTokensPerSec, List<String> engines, double[] inflight,
                            double wallSeconds, int gateways, String front, List<Map<String, Double>> syncMetrics,
                            Map<String, Double> qualityMetrics) {

        /** Without decision-quality counters. */
        public RunWindow(double timeScale, double prefillTokensPerSec, List<String> engines, double[] inflight,
                         double wallSeconds, int gateways, String front, List<Map<String, Double>> syncMetrics) {
            this(timeScale, prefillTokensPerSec, engines, inflight, wallSeconds, gateways, front, syncMetrics,
                    Map.of());
        }

        /** One load balancer, no sync. */
        public RunWindow(double timeScale, double prefillTokensPerSec, List<String> engines, double[] inflight,
                         double wallSeconds) {
            this(timeScale, prefillTokensPerSec, engines, inflight, wallSeconds, 1, null, List.of());
        }
    }

    public static PolicyResult compute(PolicySpec spec, String kind, Map<String, String> settings,
                                       List<RequestRecord> records, RunWindow w) {
        double scale = w.timeScale();
        List<RequestRecord> measured = records.stream().filter(r -> !r.warmup).toList();
        List<RequestRecord> ok = measured.stream().filter(RequestRecord::ok).toList();
        long prompt = 0;
        long cached = 0;
        long reusable = 0;
        long reused = 0;
        long prefix = 0;
        long prefixCached = 0;
        long lruCached = 0;
        long beladyCached = 0;
        double[] ttft = new double[ok.size()];
        double[] e2e = new double[ok.size()];
        double[] lag = new double[measured.size()];
        Map<String, Long> branches = new TreeMap<>();
        Map<String, Long> perEngine = new TreeMap<>();
        long firstSent = Long.MAX_VALUE;
        long lastDone = Long.MIN_VALUE;
        long firstArrival = Long.MAX_VALUE;
        long lastArrival = Long.MIN_VALUE;
        for (int i = 0; i < measured.size(); i++) {
            RequestRecord r = measured.get(i);
            lag[i] = Math.max(0, r.sentNanos - r.dueNanos) / 1e6;
            firstSent = Math.min(firstSent, r.sentNanos);
            firstArrival = Math.min(firstArrival, r.scheduledVirtualNanos);
            lastArrival = Math.max(lastArrival, r.scheduledVirtualNanos);
            if (r.decision != null) {
                branches.merge(r.decision, 1L, Long::sum);
            }
        }
        for (int i = 0; i < ok.size(); i++) {
            RequestRecord r = ok.get(i);
            prompt += r.promptTokens;
            cached += r.cachedTokens;
            reusable += r.reusableTokens;
            reused += Math.min(r.cachedTokens, r.reusableTokens);
            prefix += r.prefixTokens;
            prefixCached += Math.min(r.cachedTokens, r.prefixTokens);
            lruCached += r.pooledLruTokens;
            beladyCached += r.beladyTokens;
            ttft[i] = (r.firstTokenNanos - r.sentNanos) * scale / 1e6;
            e2e[i] = (r.doneNanos - r.sentNanos) * scale / 1e6;
            lastDone = Math.max(lastDone, r.doneNanos);
            perEngine.merge(r.engine == null ? "?" : r.engine, 1L, Long::sum);
        }
        List<String> engines = new ArrayList<>(w.engines());
        perEngine.keySet().stream().filter(e -> !engines.contains(e)).sorted().forEach(engines::add);
        List<Double> shares = new ArrayList<>();
        for (String e : engines) {
            shares.add(ok.isEmpty() ? 0.0 : perEngine.getOrDefault(e, 0L) / (double) ok.size());
        }
        double spanSeconds = measured.size() < 2 ? Double.NaN : (lastArrival - firstArrival) / 1e9;
        double busySeconds = ok.isEmpty() ? Double.NaN : (lastDone - firstSent) * scale / 1e9;
        List<Double> inflight = null;
        Double inflightRatio = null;
        Double inflightPeak = null;
        if (w.inflight() != null) {
            double[] f = w.inflight();
            inflight = new ArrayList<>();
            for (int i = 0; i < f.length - 1; i++) {
                inflight.add(f[i]);
            }
            inflightRatio = maxOverMean(inflight);
            inflightPeak = f[f.length - 1];
        }
        double[] keyGaps = sameKeyGapsMs(measured);
        return new PolicyResult(spec.label(), kind, spec.policy(), spec.options(), settings, records.size(),
                measured.size(), ok.size(), measured.size() - ok.size(),
                ratio(cached, prompt), ratio(prefixCached, prefix), ratio(reused, reusable),
                percentile(ttft, 0.50), percentile(ttft, 0.99), percentile(e2e, 0.50), percentile(e2e, 0.99),
                finite((measured.size() - 1) / spanSeconds), finite(ok.size() / busySeconds), shares,
                maxOverMean(shares), inflight, inflightRatio, inflightPeak,
                finite((reusable - reused) / w.prefillTokensPerSec() / spanSeconds), prompt, cached, reusable, prefix,
                branches, percentile(lag, 0.99), w.wallSeconds(), w.gateways(), w.front(), stickiness(records),
                w.syncMetrics(), percentile(keyGaps, 0.05), percentile(keyGaps, 0.50), perReplica(records),
                ratio(lruCached, prompt), ratio(beladyCached, prompt), ratio(cached, beladyCached),
                keysByFirstEngine(records, engines), w.qualityMetrics());
    }

    /**
     * How many routing keys each engine (in {@code engines} order) served first: the engine of each key's first
     * completed request in send order, warm-up included, as {@link #stickiness} defines it. Empty without keys.
     */
    static List<Long> keysByFirstEngine(List<RequestRecord> records, List<String> engines) {
        Map<String, String> first = new HashMap<>();
        for (RequestRecord r : records.stream().sorted(Comparator.comparingLong(x -> x.seq)).toList()) {
            if (r.ok() && r.routingKey != null && r.engine != null) {
                first.putIfAbsent(r.routingKey, r.engine);
            }
        }
        if (first.isEmpty()) {
            return List.of();
        }
        long[] counts = new long[engines.size()];
        first.values().forEach(e -> {
            int i = engines.indexOf(e);
            if (i >= 0) {
                counts[i]++;
            }
        });
        return Arrays.stream(counts).boxed().toList();
    }

    /** Requests sent to each replica (every record, warm-up included), indexed by replica. */
    static List<Long> perReplica(List<RequestRecord> records) {
        int n = records.stream().mapToInt(r -> r.replica + 1).max().orElse(0);
        long[] counts = new long[n];
        records.forEach(r -> counts[r.replica]++);
        return Arrays.stream(counts).boxed().toList();
    }

    /** Simulated ms between consecutive scheduled arrivals of the same routing key, over the given records. */
    static double[] sameKeyGapsMs(List<RequestRecord> records) {
        Map<String, Long> last = new HashMap<>();
        List<Double> gaps = new ArrayList<>();
        for (RequestRecord r : records.stream().sorted(Comparator.comparingLong(x -> x.scheduledVirtualNanos))
                .toList()) {
            if (r.routingKey == null) {
                continue;
            }
            Long before = last.put(r.routingKey, r.scheduledVirtualNanos);
            if (before != null) {
                gaps.add((r.scheduledVirtualNanos - before) / 1e6);
            }
        }
        return gaps.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Share of the measured, completed requests with a routing key that their key's first engine served — the engine
     * of the key's first completed request in send order, warm-up included, as a sticky session would define it.
     * Null when no measured request carries a key.
     */
    static Double stickiness(List<RequestRecord> records) {
        Map<String, String> first = new HashMap<>();
        long keyed = 0;
        long onFirst = 0;
        for (RequestRecord r : records.stream().sorted(Comparator.comparingLong(x -> x.seq)).toList()) {
            if (!r.ok() || r.routingKey == null || r.engine == null) {
                continue;
            }
            String engine = first.computeIfAbsent(r.routingKey, k -> r.engine);
            if (!r.warmup) {
                keyed++;
                onFirst += engine.equals(r.engine) ? 1 : 0;
            }
        }
        return keyed == 0 ? null : onFirst / (double) keyed;
    }

    private static Double ratio(long a, long b) {
        return b == 0 ? null : a / (double) b;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    /** Largest value / mean of the values, or null when the mean is 0. */
    static Double maxOverMean(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double mean = values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        return mean == 0 ? null : max / mean;
    }

    /** Nearest-rank percentile, or null for no values. */
    static Double percentile(double[] values, double q) {
        if (values.length == 0) {
            return null;
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int rank = (int) Math.ceil(q * s.length);
        return s[Math.max(0, Math.min(s.length - 1, rank - 1))];
    }
}
