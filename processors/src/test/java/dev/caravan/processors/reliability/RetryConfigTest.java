package dev.caravan.processors.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;

class RetryConfigTest {

    private static RetryConfig config(double jitter) {
        return new RetryConfig(5, Duration.ofMillis(50), Duration.ofMillis(200), 1.5, jitter);
    }

    private static List<Long> sequence(RetryConfig c, RandomGenerator random, int n) {
        List<Long> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.add(c.backoffMillis(k, random));
        }
        return out;
    }

    @Test
    void withoutJitterTheDelayGrowsByTheMultiplierUpToTheCap() {
        assertThat(sequence(config(0), new SplittableRandom(1), 6))
                .containsExactly(50L, 75L, 113L, 169L, 200L, 200L); // 50 x 1.5^k, rounded, capped at 200
    }

    @Test
    void jitterStaysWithinTheFactorAndIsReproducibleForASeed() {
        RetryConfig c = config(0.2);
        List<Long> a = sequence(c, new SplittableRandom(42), 6);
        List<Long> b = sequence(c, new SplittableRandom(42), 6);
        assertThat(a).isEqualTo(b);
        long[] base = {50, 75, 113, 169, 200, 200};
        for (int k = 0; k < base.length; k++) {
            assertThat(a.get(k)).as("retry %d", k).isBetween(Math.round(base[k] * 0.8) - 1, Math.round(base[k] * 1.2) + 1);
        }
    }

    @Test
    void jitterIsCentredOnTheBaseDelay() {
        RetryConfig c = config(0.2);
        SplittableRandom random = new SplittableRandom(7);
        long sum = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            long d = c.backoffMillis(0, random);
            sum += d;
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertThat(sum / (double) n).isBetween(49.5, 50.5);
        assertThat(min).isBetween(40L, 41L);
        assertThat(max).isBetween(59L, 60L);
    }

    @Test
    void retriesSglangsStatusesOnly() {
        List<Integer> retryable = new ArrayList<>();
        for (int s = 100; s < 600; s++) {
            if (RetryConfig.isRetryableStatus(s)) {
                retryable.add(s);
            }
        }
        assertThat(retryable).containsExactly(408, 429, 500, 502, 503, 504);
    }

    @Test
    void defaultsAreSglangs() {
        RetryConfig d = RetryConfig.defaults();
        assertThat(d.maxAttempts()).isEqualTo(5);
        assertThat(d.initialBackoff()).isEqualTo(Duration.ofMillis(50));
        assertThat(d.maxBackoff()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.multiplier()).isEqualTo(1.5);
        assertThat(d.jitterFactor()).isEqualTo(0.2);
        assertThat(RetryConfig.disabled().maxAttempts()).isEqualTo(1);
    }

    @Test
    void rejectsInvalidValuesNamingThem() {
        Duration ms50 = Duration.ofMillis(50);
        assertThatThrownBy(() -> new RetryConfig(0, ms50, ms50, 1.5, 0.2)).hasMessage("retry maxAttempts must be >= 1, was 0");
        assertThatThrownBy(() -> new RetryConfig(3, ms50, Duration.ofMillis(10), 1.5, 0.2))
                .hasMessageContaining("maxBackoff must be >= initialBackoff");
        assertThatThrownBy(() -> new RetryConfig(3, ms50, ms50, 0.5, 0.2)).hasMessage("retry multiplier must be >= 1, was 0.5");
        assertThatThrownBy(() -> new RetryConfig(3, ms50, ms50, 1.5, 1.5)).hasMessage("retry jitterFactor must be in [0,1], was 1.5");
    }
}
