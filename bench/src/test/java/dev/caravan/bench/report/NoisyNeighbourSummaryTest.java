package dev.caravan.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.drive.RequestRecord;

class NoisyNeighbourSummaryTest {

    private static RequestRecord rec(long seq, boolean warmup, long atSeconds, String tenant, int status,
                                     long ttftMs) {
        RequestRecord r = new RequestRecord(seq, warmup, atSeconds * 1_000_000_000L, 0, 0, 0, tenant, 0);
        r.sentNanos = 1_000;
        r.status = status;
        if (status == 200) {
            r.firstTokenNanos = r.sentNanos + ttftMs * 1_000_000;
            r.doneNanos = r.firstTokenNanos + 1;
        } else {
            r.doneNanos = r.sentNanos + 1;
            r.error = "refused";
        }
        return r;
    }

    @Test
    void quietTtftAndNoisyAdmittedRateCountOnlyMeasuredRequests() {
        List<RequestRecord> records = new ArrayList<>();
        records.add(rec(0, true, 0, "quiet-0", 200, 9_000));      // warm-up: left out
        records.add(rec(1, true, 0, "noisy", 200, 10));
        for (int i = 0; i < 100; i++) {
            records.add(rec(2 + i, false, 60 + i * 120L / 99, "quiet-" + i % 4, 200, i + 1));
        }
        for (int i = 0; i < 30; i++) {
            records.add(rec(200 + i, false, 60 + i * 4L, "noisy", i < 20 ? 200 : 429, 5));
        }
        records.add(rec(300, false, 100, "quiet-1", 503, 0));
        NoisyNeighbourSummary s = NoisyNeighbourSummary.of("flow_control", records, 2.0);

        assertThat(s.quietMeasured()).isEqualTo(101);
        assertThat(s.quietFailed()).isEqualTo(1);
        assertThat(s.quietTtftP50Ms()).isEqualTo(100.0);  // 50th of 1..100 ms, × time scale 2
        assertThat(s.quietTtftP99Ms()).isEqualTo(198.0);
        assertThat(s.noisySent()).isEqualTo(30);
        assertThat(s.noisyAdmitted()).isEqualTo(20);
        assertThat(s.noisyThrottled()).isEqualTo(10);
        assertThat(s.minutes()).isEqualTo(2.0);
        assertThat(s.noisyAdmittedPerMinute()).isEqualTo(10.0);
        assertThat(s.withQuota(10).line(99.0)).isEqualTo("flow_control: quiet tenants TTFT p50 100 / p99 198 ms (p99 2.00× "
                + "alone), 1 of 101 quiet requests failed; noisy tenant: 30 sent, 20 admitted (10/min over 2.00 "
                + "simulated min), 10 answered 429 — 1.00× its quota of 10/min.");
    }
}
