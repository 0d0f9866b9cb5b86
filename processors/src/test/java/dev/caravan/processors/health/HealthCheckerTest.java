package dev.caravan.processors.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerHealthCheck;
import dev.caravan.policies.WorkerRegistry;

class HealthCheckerTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong nanos = new AtomicLong();
    private final WorkerRegistry registry = new WorkerRegistry();
    private final HealthChecker checker = new HealthChecker(
            new HealthConfig(Duration.ofSeconds(10), Duration.ofSeconds(2), "/health", 3, 2, false), nanos::get);
    private final List<String> transitions = new ArrayList<>();

    HealthCheckerTest() {
        registry.addListener(checker);
        checker.addObserver(new HealthObserver() {
            @Override
            public void onTransition(Worker worker, boolean healthy) {
                transitions.add(worker.url() + (healthy ? " healthy" : " unhealthy"));
            }
        });
    }

    private void answer(List<HealthProbe> probes, boolean ok) {
        probes.forEach(p -> checker.apply(new HealthProbeResult(p, ok, ok ? "HTTP 200" : "HTTP 503")));
    }

    @Test
    void probesEachWorkerOnItsOwnIntervalWithItsOwnTimeout() {
        Worker a = registry.add(Worker.builder("http://a:1").build());
        Worker b = registry.add(Worker.builder("http://b:1")
                .healthCheck(new WorkerHealthCheck(7L, 3L, null, null, null)).build());

        List<HealthProbe> first = checker.due();
        assertThat(first).extracting(p -> p.url() + " " + p.timeout().toSeconds())
                .containsExactlyInAnyOrder("http://a:1/health 2", "http://b:1/health 7");
        answer(first, true);

        nanos.addAndGet(3 * SECOND);
        assertThat(checker.due()).extracting(p -> p.worker()).containsExactly(b);
        nanos.addAndGet(7 * SECOND);
        assertThat(checker.due()).extracting(p -> p.worker()).containsExactly(a);
    }

    @Test
    void aRunningProbeIsNeverDoubled() {
        registry.add(Worker.builder("http://a:1").build());
        List<HealthProbe> running = checker.due();
        nanos.addAndGet(60 * SECOND);
        assertThat(checker.due()).isEmpty();
        answer(running, true);
        assertThat(checker.due()).hasSize(1);
    }

    @Test
    void healthFlipsWithHysteresisAndTheWorkerLeavesRoutingOnlyThen() {
        Worker a = registry.add(Worker.builder("http://a:1").build());
        for (int i = 0; i < 2; i++) {
            answer(checker.due(), false);
            nanos.addAndGet(10 * SECOND);
        }
        assertThat(a.isHealthy()).isTrue();
        answer(checker.due(), false);
        assertThat(a.isHealthy()).isFalse();
        assertThat(a.isAvailable()).isFalse();

        nanos.addAndGet(10 * SECOND);
        answer(checker.due(), true);
        assertThat(a.isHealthy()).isFalse();
        nanos.addAndGet(10 * SECOND);
        answer(checker.due(), true);
        assertThat(a.isHealthy()).isTrue();
        assertThat(transitions).containsExactly("http://a:1 unhealthy", "http://a:1 healthy");
    }

    @Test
    void perWorkerThresholdsOverrideTheGateways() {
        Worker a = registry.add(Worker.builder("http://a:1")
                .healthCheck(new WorkerHealthCheck(null, null, 1, 1, null)).build());
        answer(checker.due(), false);
        assertThat(a.isHealthy()).isFalse();
        nanos.addAndGet(10 * SECOND);
        answer(checker.due(), true);
        assertThat(a.isHealthy()).isTrue();
    }

    @Test
    void aWorkerWithHealthChecksDisabledIsNeverProbedAndStaysHealthy() {
        Worker a = registry.add(Worker.builder("http://a:1")
                .healthCheck(new WorkerHealthCheck(null, null, null, null, true)).build());
        a.setHealthy(false);
        assertThat(checker.due()).isEmpty();
        assertThat(a.isHealthy()).isTrue();
    }

    @Test
    void resultsOfARemovedWorkerAreIgnored() {
        Worker a = registry.add(Worker.builder("http://a:1")
                .healthCheck(new WorkerHealthCheck(null, null, null, 1, null)).build());
        List<HealthProbe> probes = checker.due();
        registry.remove(a.id());
        answer(probes, false);
        assertThat(transitions).isEmpty();
    }

    @Test
    void rejectsInvalidSettingsNamingThem() {
        assertThatThrownBy(() -> new HealthConfig(Duration.ofSeconds(1), Duration.ofSeconds(1), "health", 1, 1, false))
                .hasMessage("health endpoint must start with /, was 'health'");
        assertThatThrownBy(() -> new HealthConfig(Duration.ZERO, Duration.ofSeconds(1), "/h", 1, 1, false))
                .hasMessage("health interval must be positive, was PT0S");
        assertThatThrownBy(() -> new WorkerHealthCheck(null, 0L, null, null, null))
                .hasMessage("health_check_interval_secs must be >= 1, was 0");
    }
}
