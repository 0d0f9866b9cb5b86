package dev.caravan.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.text.PseudoTokenizer;

class NoisyNeighbourWorkloadTest {

    private static List<BenchRequest> all(Workload w) {
        List<BenchRequest> out = new ArrayList<>();
        w.arrivals().forEachRemaining(out::add);
        return out;
    }

    @Test
    void noisyTenantSendsTenTimesWhatEachQuietTenantSends() {
        List<BenchRequest> reqs = all(new NoisyNeighbourWorkload(4, 1.0, 10, 64, 4, 14_000, 0, 5));
        long noisy = reqs.stream().filter(r -> r.tenant().equals(NoisyNeighbourWorkload.NOISY)).count();
        long quiet0 = reqs.stream().filter(r -> r.tenant().equals("quiet-0")).count();
        assertThat(reqs).hasSize(14_000);
        assertThat(noisy).isBetween(9_800L, 10_200L);
        assertThat((double) noisy / quiet0).isBetween(9.0, 11.0);
        assertThat(reqs).allMatch(r -> r.routingKey().equals(r.tenant()));
    }

    @Test
    void everyPromptIsUniqueAndOfThePromptTokens() {
        List<BenchRequest> reqs = all(new NoisyNeighbourWorkload(2, 1.0, 10, 128, 4, 50, 0, 5));
        assertThat(reqs.stream().map(BenchRequest::renderedText).distinct()).hasSize(50);
        assertThat(new PseudoTokenizer().count(reqs.get(0).renderedText())).isBetween(126, 130);
        assertThat(reqs.get(0).prefixTokens()).isZero();
    }

    @Test
    void aloneSendsTheSameQuietRequestsAtTheSameTimesAndLeavesOutTheSameWarmUp() {
        NoisyNeighbourWorkload w = new NoisyNeighbourWorkload(4, 1.0, 10, 64, 4, 700, 140, 9);
        List<BenchRequest> quiet = all(w).stream()
                .filter(r -> !r.tenant().equals(NoisyNeighbourWorkload.NOISY)).toList();
        List<BenchRequest> alone = all(w.alone());
        assertThat(alone).hasSize(quiet.size());
        for (int i = 0; i < alone.size(); i++) {
            assertThat(alone.get(i).atNanos()).isEqualTo(quiet.get(i).atNanos());
            assertThat(alone.get(i).renderedText()).isEqualTo(quiet.get(i).renderedText());
        }
        long quietInWarmup = all(w).stream().limit(140)
                .filter(r -> !r.tenant().equals(NoisyNeighbourWorkload.NOISY)).count();
        assertThat(w.alone().defaultWarmup()).isEqualTo((int) quietInWarmup);
        assertThat(w.defaultWarmup()).isEqualTo(140);
    }
}
