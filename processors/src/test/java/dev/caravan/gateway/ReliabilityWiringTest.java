package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.admission.AdmissionConfig;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.health.HealthConfig;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.reliability.BreakerConfig;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.reliability.RetryConfig;

/** SGLang command lines become the reliability configs, with SGLang's defaults. */
class ReliabilityWiringTest {

    @TempDir
    Path dir;

    private GatewayConfig parse(String... args) {
        return ConfigResolver.resolve(args, Map.of(), dir).config();
    }

    @Test
    void defaultsAreSglangsRouterDefaults() {
        GatewayConfig c = GatewayConfig.defaults();
        assertThat(ReliabilityFeature.breakerConfig(c))
                .isEqualTo(new BreakerConfig(true, 10, 3, Duration.ofSeconds(60)));
        assertThat(ReliabilityFeature.retryConfig(c)).isEqualTo(RetryConfig.defaults());
        assertThat(FlowFeature.admissionConfig(c)).isEqualTo(
                new AdmissionConfig(-1, 100, Duration.ofSeconds(60), -1));
        assertThat(HealthFeature.healthConfig(c)).isEqualTo(new HealthConfig(Duration.ofSeconds(60),
                Duration.ofSeconds(5), "/health", 3, 2, false));
        assertThat(c.getLong(FlowFeature.SHUTDOWN_GRACE_PERIOD_SECS)).isEqualTo(180);
    }

    @Test
    void anSglangCommandLineSetsEveryReliabilitySetting() {
        GatewayConfig c = parse("--cb-failure-threshold", "4", "--cb-success-threshold", "2",
                "--cb-timeout-duration-secs", "9", "--cb-window-duration-secs", "30", "--disable-circuit-breaker",
                "--retry-max-retries", "3", "--retry-initial-backoff-ms", "10", "--retry-max-backoff-ms", "100",
                "--retry-backoff-multiplier", "2", "--retry-jitter-factor", "0",
                "--max-concurrent-requests", "8", "--queue-size", "4", "--queue-timeout-secs", "2",
                "--rate-limit-tokens-per-second", "50",
                "--health-check-interval-secs", "7", "--health-check-timeout-secs", "1", "--health-check-endpoint",
                "/ready", "--health-failure-threshold", "5", "--health-success-threshold", "1",
                "--disable-health-check");

        assertThat(ReliabilityFeature.breakerConfig(c))
                .isEqualTo(new BreakerConfig(false, 4, 2, Duration.ofSeconds(9)));
        assertThat(ReliabilityFeature.retryConfig(c)).isEqualTo(
                new RetryConfig(3, Duration.ofMillis(10), Duration.ofMillis(100), 2.0, 0.0));
        assertThat(FlowFeature.admissionConfig(c)).isEqualTo(new AdmissionConfig(8, 4, Duration.ofSeconds(2), 50));
        assertThat(HealthFeature.healthConfig(c)).isEqualTo(new HealthConfig(Duration.ofSeconds(7),
                Duration.ofSeconds(1), "/ready", 5, 1, true));
    }

    @Test
    void disablingRetriesMeansOneAttempt() {
        assertThat(ReliabilityFeature.retryConfig(parse("--disable-retries", "--retry-max-retries", "9")).maxAttempts())
                .isEqualTo(1);
    }

    @Test
    void inconsistentValuesStopTheGatewayNamingThem() {
        assertThatThrownBy(() -> parse("--retry-max-retries", "0"))
                .hasMessageContaining("--retry-max-retries (caravan.retry.max-retries) must be an integer in [1, 100], "
                        + "was '0'");
        assertThatThrownBy(() -> parse("--max-concurrent-requests", "-5"))
                .hasMessageContaining("--max-concurrent-requests (caravan.admission.max-concurrent-requests) must be "
                        + "-1 (unlimited) or an integer >= 1, was '-5'");
        assertThatThrownBy(() -> ReliabilityFeature.retryConfig(parse("--retry-initial-backoff-ms", "500",
                "--retry-max-backoff-ms", "100"))).hasMessageContaining("maxBackoff must be >= initialBackoff");
        assertThatThrownBy(() -> parse("--max-concurrent-requests", "0"))
                .hasMessage("--max-concurrent-requests (caravan.admission.max-concurrent-requests) must be "
                        + "-1 (unlimited) or an integer >= 1, was '0'");
    }

    @Test
    void theAdminKeyIsMaskedLikeTheClientKey() {
        GatewayConfig c = parse("--api-key", "sk-client-1", "--admin-api-key", "sk-admin-1");
        assertThat(c.toString()).doesNotContain("sk-client-1").doesNotContain("sk-admin-1");
        assertThat(c.adminApiKey()).isEqualTo("sk-admin-1");
    }
}
