package dev.caravan.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.report.NoisyNeighbourSummary;
import dev.caravan.bench.workload.NoisyNeighbourWorkload;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.Tenant;
import dev.caravan.processors.flow.TenantsFile;

/**
 * The noisy-neighbour bench's runs of one invocation: the quiet tenants alone (the first policy entry, without the
 * noisy tenant), then every entry with it. Collects a {@link NoisyNeighbourSummary} per run and writes the report's
 * lines and the report's summaries (alone first), each shared run's quiet-tenant p99 as a multiple of the alone run's,
 * and the noisy tenant's admitted rate as a multiple of the {@code requestsPerMinute} its entry's {@code tenants-file}
 * gives it.
 */
final class NoisyNeighbourRuns {

    private final NoisyNeighbourWorkload workload;
    private final double timeScale;
    private NoisyNeighbourSummary alone;
    private final List<NoisyNeighbourSummary> shared = new ArrayList<>();
    private final Map<String, Long> quotas = new LinkedHashMap<>();

    NoisyNeighbourRuns(NoisyNeighbourWorkload workload, double timeScale) {
        this.workload = workload;
        this.timeScale = timeScale;
    }

    NoisyNeighbourWorkload workload() {
        return workload;
    }

    /** Where the alone run's records go. */
    Consumer<List<RequestRecord>> alone(String label) {
        return records -> alone = NoisyNeighbourSummary.of(label, records, timeScale);
    }

    /** Where a shared run's records go; its quota comes from the entry's tenants file, if it has one. */
    Consumer<List<RequestRecord>> shared(PolicySpec spec) {
        quotas.put(spec.label(), quotaPerSimulatedMinute(spec));
        return records -> shared.add(NoisyNeighbourSummary.of(spec.label(), records, timeScale));
    }

    /** The report lines, alone first. */
    List<String> lines() {
        List<String> out = new ArrayList<>();
        Double aloneP99 = alone == null ? null : alone.quietTtftP99Ms();
        for (NoisyNeighbourSummary s : summaries()) {
            out.add("Noisy neighbour, " + s.line(s == alone ? null : aloneP99));
        }
        return out;
    }

    /** The quiet tenants alone, then every shared run with its quota; empty when the alone run did not run. */
    List<NoisyNeighbourSummary> summaries() {
        if (alone == null) {
            return List.of();
        }
        List<NoisyNeighbourSummary> out = new ArrayList<>();
        out.add(alone);
        for (NoisyNeighbourSummary s : shared) {
            out.add(s.withQuota(quotas.getOrDefault(s.label(), 0L)));
        }
        return out;
    }

    /**
     * The noisy tenant's {@code requestsPerMinute} in simulated minutes (the gateway counts wall minutes, each
     * {@code timeScale} simulated ones), or 0 without a tenants file or limit.
     */
    private long quotaPerSimulatedMinute(PolicySpec spec) {
        String file = spec.options().get(FlowFeature.TENANTS_FILE.flag().substring(2));
        if (file == null) {
            return 0;
        }
        Tenant t = TenantsFile.read(Path.of(file)).tenants().get(NoisyNeighbourWorkload.NOISY);
        long rpm = t == null ? -1 : t.limits().requestsPerMinute();
        return rpm <= 0 ? 0 : Math.round(rpm / timeScale);
    }
}
