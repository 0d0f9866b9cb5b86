package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.report.Analytic;
import dev.caravan.bench.report.AnalyticBounds;
import dev.caravan.bench.workload.B2bWorkload;
import dev.caravan.bench.workload.Popularity;

class AnalyticTest {

    private static double[] uniform(int w) {
        double[] p = new double[w];
        Arrays.fill(p, 1.0 / w);
        return p;
    }

    @Test
    void uniformRoundRobinIsMOverW() {
        assertThat(Analytic.lruHit(uniform(1000), 1, 0, 104)).isCloseTo(0.104, within(1e-9));
    }

    @Test
    void uniformAffinityIsMnOverW() {
        assertThat(Analytic.affinityHit(uniform(1000), 8, 1, 0, 104)).isCloseTo(0.832, within(1e-9));
        assertThat(Analytic.affinityHit(uniform(500), 8, 1, 0, 104)).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void uniqueBlocksPushPrefixesOut() {
        double without = Analytic.affinityHit(uniform(1000), 8, 128, 0, 104 * 128);
        double with = Analytic.affinityHit(uniform(1000), 8, 128, 3, 104 * 128);
        assertThat(without).isCloseTo(0.832, within(1e-9));
        assertThat(with).isBetween(0.78, 0.81);
    }

    @Test
    void skewRaisesRoundRobinHits() {
        double[] zipf = Popularity.parse("zipf:1.0", 1000).probabilities();
        assertThat(Analytic.lruHit(zipf, 1, 0, 104)).isBetween(0.55, 0.62);
    }

    @Test
    void b2bDefaultsReproduceTheDesignDocument() {
        B2bWorkload w = new B2bWorkload(1000, 2048, 32, 16, 60, 100, 10, "uniform", 1, 104);
        AnalyticBounds a = w.analytic(8, 24_000);
        assertThat(a.roundRobinHit()).isCloseTo(0.104, within(1e-9));
        assertThat(a.affinityHit()).isCloseTo(0.832, within(1e-9));
        assertThat(a.gWaste(a.roundRobinHit())).isCloseTo(60 * 0.896 * 2048 / 24_000.0, within(1e-9));
        assertThat(a.uniqueBlocksPerRequest()).isEqualTo(3);
    }
}
