package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.workload.Popularity;

class PopularityTest {

    @Test
    void uniformGivesEveryTenantTheSameProbability() {
        double[] p = Popularity.parse("uniform", 4).probabilities();
        assertThat(p).containsExactly(0.25, 0.25, 0.25, 0.25);
    }

    @Test
    void hotTenantCarriesItsShareOfSamples() {
        Popularity hot = Popularity.parse("hot:0.4", 100);
        assertThat(hot.probabilities()[0]).isEqualTo(0.4);
        assertThat(hot.probabilities()[1]).isCloseTo(0.6 / 99, within(1e-12));
        SplittableRandom r = new SplittableRandom(7);
        int zero = 0;
        for (int i = 0; i < 20_000; i++) {
            zero += hot.sample(r) == 0 ? 1 : 0;
        }
        assertThat(zero / 20_000.0).isBetween(0.38, 0.42);
    }

    @Test
    void zipfWeightsFallAsOneOverRankToTheExponent() {
        double[] p = Popularity.parse("zipf:1.0", 3).probabilities();
        double h = 1 + 0.5 + 1.0 / 3;
        assertThat(p[0]).isCloseTo(1 / h, within(1e-12));
        assertThat(p[2]).isCloseTo(1 / 3.0 / h, within(1e-12));
        assertThat(Arrays.stream(p).sum()).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void samplesStayWithinTheTenants() {
        Popularity z = Popularity.parse("zipf:1.2", 5);
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            assertThat(z.sample(r)).isBetween(0, 4);
        }
    }

    @Test
    void rejectsUnknownSpecsNamingThem() {
        assertThatThrownBy(() -> Popularity.parse("pareto", 10)).hasMessageContaining("'pareto'");
        assertThatThrownBy(() -> Popularity.parse("hot:1.5", 10)).hasMessageContaining("1.5");
        assertThatThrownBy(() -> Popularity.parse("zipf:-1", 10)).hasMessageContaining("-1");
        assertThatThrownBy(() -> Popularity.parse("zipf:x", 10)).hasMessageContaining("zipf:x");
    }
}
