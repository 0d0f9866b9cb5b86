package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.workload.NoisyNeighbourWorkload;

class NoisyNeighbourRunsTest {

    private static List<RequestRecord> run(long quietTtftMs, int noisyAdmitted) {
        List<RequestRecord> out = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            out.add(done(i, i * 6L, "quiet-" + i % 2, quietTtftMs, 200));
        }
        for (int i = 0; i < 20; i++) {
            out.add(done(10 + i, i * 60L / 19, NoisyNeighbourWorkload.NOISY, 1, i < noisyAdmitted ? 200 : 429));
        }
        return out;
    }

    private static RequestRecord done(long seq, long atSeconds, String tenant, long ttftMs, int status) {
        RequestRecord r = new RequestRecord(seq, false, atSeconds * 1_000_000_000L, 0, 0, 0, tenant, 0);
        r.status = status;
        r.firstTokenNanos = ttftMs * 1_000_000;
        r.doneNanos = r.firstTokenNanos;
        return r;
    }

    @Test
    void sharedRunsAreSetAgainstTheAloneRunAndTheQuotaOfTheirTenantsFile(@TempDir Path dir) throws IOException {
        Path tenants = dir.resolve("tenants.yaml");
        Files.writeString(tenants, "trustTenantHeader: true\ntenants:\n  noisy:\n    requestsPerMinute: 12\n");
        // time scale 2: the gateway's 12 a wall minute are 6 a simulated minute
        NoisyNeighbourRuns runs = new NoisyNeighbourRuns(new NoisyNeighbourWorkload(2, 1, 10, 64, 4, 100, 10, 1),
                2.0);
        runs.alone("fifo (quiet tenants alone)").accept(run(50, 0).subList(0, 10));
        runs.shared(PolicySpec.parse("round_robin@fifo")).accept(run(200, 20));
        runs.shared(PolicySpec.parse("round_robin:tenants-file=" + tenants + "@fc")).accept(run(60, 6));

        List<String> lines = runs.lines();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).isEqualTo("Noisy neighbour, fifo (quiet tenants alone): quiet tenants TTFT p50 100 "
                + "/ p99 100 ms, 0 of 10 quiet requests failed.");
        assertThat(lines.get(1)).contains("(p99 4.00× alone)", "20 sent, 20 admitted (20/min over 1.00 simulated min)")
                .doesNotContain("quota");
        assertThat(lines.get(2)).endsWith("(p99 1.20× alone), 0 of 10 quiet requests failed; noisy tenant: 20 sent, "
                + "6 admitted (6/min over 1.00 simulated min), 14 answered 429 — 1.00× its quota of 6/min.");
        assertThat(runs.summaries()).extracting(s -> s.label() + " " + s.quotaPerMinute())
                .containsExactly("fifo (quiet tenants alone) 0", "fifo 0", "fc 6");
    }
}
