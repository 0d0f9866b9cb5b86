package dev.caravan.bench.report;

import java.util.List;
import java.util.Locale;

import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.workload.NoisyNeighbourWorkload;

/**
 * What the noisy-neighbour bench measures in one run: the quiet tenants' TTFT (completed requests, simulated ms)
 * and how many of their requests failed, and the noisy tenant's admitted rate (completed requests per simulated minute
 * of the measured arrivals) against what it sent. Requests are told apart by their routing key, which the workload sets
 * to the tenant's name.
 *
 * @param label          the run's row name
 * @param quietTtftP50Ms quiet tenants' TTFT p50 (null when none completed)
 * @param quietTtftP99Ms quiet tenants' TTFT p99 (null when none completed)
 * @param quietMeasured  quiet requests measured
 * @param quietFailed    of them, not completed (any status but 200, or no answer)
 * @param noisySent      noisy requests measured
 * @param noisyAdmitted  of them, completed
 * @param noisyThrottled of them, answered 429
 * @param minutes        simulated minutes from the first to the last measured arrival
 * @param quotaPerMinute the noisy tenant's {@code requestsPerMinute} in simulated minutes, 0 without a limit
 */
public record NoisyNeighbourSummary(String label, Double quietTtftP50Ms, Double quietTtftP99Ms, int quietMeasured,
                                   int quietFailed, int noisySent, int noisyAdmitted, int noisyThrottled,
                                   double minutes, long quotaPerMinute) {

    /** Summarises one run's records; {@code timeScale} turns wall into simulated time. */
    public static NoisyNeighbourSummary of(String label, List<RequestRecord> records, double timeScale) {
        List<RequestRecord> measured = records.stream().filter(r -> !r.warmup).toList();
        double[] ttft = measured.stream().filter(r -> isQuiet(r) && r.ok() && r.firstTokenNanos >= 0)
                .mapToDouble(r -> (r.firstTokenNanos - r.sentNanos) * timeScale / 1e6).toArray();
        int quiet = (int) measured.stream().filter(NoisyNeighbourSummary::isQuiet).count();
        int quietOk = (int) measured.stream().filter(r -> isQuiet(r) && r.ok()).count();
        List<RequestRecord> noisy = measured.stream().filter(r -> !isQuiet(r)).toList();
        long first = measured.stream().mapToLong(r -> r.scheduledVirtualNanos).min().orElse(0);
        long last = measured.stream().mapToLong(r -> r.scheduledVirtualNanos).max().orElse(0);
        return new NoisyNeighbourSummary(label, ResultCalculator.percentile(ttft, 0.50),
                ResultCalculator.percentile(ttft, 0.99), quiet, quiet - quietOk, noisy.size(),
                (int) noisy.stream().filter(RequestRecord::ok).count(),
                (int) noisy.stream().filter(r -> r.status == 429).count(), (last - first) / 60e9, 0);
    }

    /** This summary with the noisy tenant's quota, in requests per simulated minute. */
    public NoisyNeighbourSummary withQuota(long perMinute) {
        return new NoisyNeighbourSummary(label, quietTtftP50Ms, quietTtftP99Ms, quietMeasured, quietFailed, noisySent,
                noisyAdmitted, noisyThrottled, minutes, perMinute);
    }

    private static boolean isQuiet(RequestRecord r) {
        return !NoisyNeighbourWorkload.NOISY.equals(r.routingKey);
    }

    /** The noisy tenant's completed requests per simulated minute. */
    public double noisyAdmittedPerMinute() {
        return minutes > 0 ? noisyAdmitted / minutes : 0;
    }

    /** One report line; {@code aloneP99} is the quiet tenants' p99 without the noisy tenant (null for that run). */
    public String line(Double aloneP99Ms) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%s: quiet tenants TTFT p50 %s / p99 %s ms",
                label, ms(quietTtftP50Ms), ms(quietTtftP99Ms)));
        if (aloneP99Ms != null && quietTtftP99Ms != null && aloneP99Ms > 0) {
            sb.append(String.format(Locale.ROOT, " (p99 %.2f× alone)", quietTtftP99Ms / aloneP99Ms));
        }
        sb.append(String.format(Locale.ROOT, ", %d of %d quiet requests failed", quietFailed, quietMeasured));
        if (noisySent > 0) {
            sb.append(String.format(Locale.ROOT, "; noisy tenant: %d sent, %d admitted (%.0f/min over %.2f "
                    + "simulated min), %d answered 429", noisySent, noisyAdmitted, noisyAdmittedPerMinute(), minutes,
                    noisyThrottled));
            if (quotaPerMinute > 0) {
                sb.append(String.format(Locale.ROOT, " — %.2f× its quota of %d/min", noisyAdmittedPerMinute()
                        / quotaPerMinute, quotaPerMinute));
            }
        }
        return sb.append('.').toString();
    }

    private static String ms(Double v) {
        return v == null ? "n/a" : String.format(Locale.ROOT, "%.0f", v);
    }
}
