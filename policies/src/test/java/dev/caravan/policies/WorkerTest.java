package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class WorkerTest {

    private final Worker worker = Worker.builder("http://w0:8000/").build();

    @Test
    void aLeasesFirstTokenActionRunsOnceAtTheFirstReportAndBeforeTheReleaseAction() {
        java.util.List<String> events = new java.util.ArrayList<>();
        WorkerLease streamed = worker.acquire(() -> events.add("released"), () -> events.add("first token"));
        streamed.firstToken();
        streamed.firstToken();
        streamed.release();
        WorkerLease failed = worker.acquire(() -> events.add("released"), () -> events.add("first token"));
        failed.release(); // never streamed: the first-token action still runs, once
        failed.firstToken();

        assertThat(events).containsExactly("first token", "released", "first token", "released");
    }

    @Test
    void leaseIsReleasedExactlyOnceEvenWhenReleasedTwice() {
        WorkerLease a = worker.acquire();
        WorkerLease b = worker.acquire();
        assertThat(worker.load()).isEqualTo(2);
        assertThat(a.release()).isTrue();
        assertThat(a.release()).isFalse();
        a.close();
        assertThat(a.isReleased()).isTrue();
        assertThat(worker.load()).isEqualTo(1); // b's unit is untouched by a's extra releases
        try (WorkerLease c = worker.acquire()) {
            assertThat(c.worker()).isSameAs(worker);
            assertThat(worker.load()).isEqualTo(2);
        }
        assertThat(worker.load()).isEqualTo(1);
        b.release();
        assertThat(worker.load()).isZero();
    }

    @Test
    void healthFlagReportsWhetherItChanged() {
        assertThat(worker.isHealthy()).isTrue();
        assertThat(worker.setHealthy(true)).isFalse();
        assertThat(worker.setHealthy(false)).isTrue();
        assertThat(worker.isHealthy()).isFalse();
        assertThat(worker.isAvailable()).isFalse();
        assertThat(worker.setHealthy(true)).isTrue();
        assertThat(worker.isAvailable()).isTrue();
        worker.setAvailabilityGate(() -> false); // breaker open: healthy but not available
        assertThat(worker.isHealthy()).isTrue();
        assertThat(worker.isAvailable()).isFalse();
    }

    @Test
    void processedCounterOnlyGrows() {
        assertThat(worker.processed()).isZero();
        worker.incrementProcessed();
        worker.incrementProcessed();
        worker.acquire().release(); // load does not count as processed
        assertThat(worker.processed()).isEqualTo(2);
    }

    @Test
    void normalisesUrlAndModelAndRejectsBadOnes() {
        assertThat(worker.url()).isEqualTo("http://w0:8000");
        assertThat(worker.modelId()).isEqualTo(Worker.UNKNOWN_MODEL_ID);
        assertThat(worker.port()).isEqualTo(8000);
        assertThatThrownBy(() -> Worker.builder("ftp://x").build())
                .hasMessage("worker url 'ftp://x' must start with http:// or https://");
        assertThatThrownBy(() -> Worker.builder("http://x:1").bootstrapPort(70000).build())
                .hasMessage("bootstrap_port must be in [1,65535], was 70000");
    }

    @Test
    void hostsWithUnderscoresIpv6LiteralsAndRootDotsRegister() {
        Worker underscore = Worker.builder("http://worker_a:8000/").build(); // SGLang's own test URLs
        assertThat(underscore.url()).isEqualTo("http://worker_a:8000");
        assertThat(underscore.host()).isEqualTo("worker_a");
        assertThat(underscore.port()).isEqualTo(8000);
        Worker v6 = Worker.builder("https://[fd00::5]").build();
        assertThat(v6.host()).isEqualTo("[fd00::5]"); // bracketed, as SGLang's bootstrap_host
        assertThat(v6.port()).isEqualTo(443);
        assertThat(v6.target().ssl()).isTrue();
        Worker fqdn = Worker.builder("http://w1.svc.cluster.local.:30000/v1").build();
        assertThat(fqdn.host()).isEqualTo("w1.svc.cluster.local.");
        assertThat(fqdn.target().path()).isEqualTo("/v1");
    }

    @Test
    void engineLoadQueueAndFreshness() {
        EngineLoad both = new EngineLoad(-1, 3, 4, 0.5, 1_000);
        assertThat(both.queued()).isEqualTo(7);
        assertThat(new EngineLoad(10, -1, 2, -1, 0).queued()).isEqualTo(2);
        assertThat(new EngineLoad(10, -1, -1, -1, 0).queued()).isEqualTo(-1);
        assertThat(both.isFresh(1_000 + 5_000_000_000L, Duration.ofSeconds(5))).isTrue();
        assertThat(both.isFresh(1_001 + 5_000_000_000L, Duration.ofSeconds(5))).isFalse();
        assertThat(both.isFresh(1_000, Duration.ZERO)).isFalse();
    }

    @Test
    void aDataParallelRankIsTheEnginesUrlWithItsRankAndConnectsToTheEngine() {
        Worker rank = Worker.builder("http://w0:8000/").dataParallelRank(2, 4).build();
        assertThat(rank.url()).isEqualTo("http://w0:8000@2");
        assertThat(rank.engineUrl()).isEqualTo("http://w0:8000");
        assertThat(rank.target().port()).isEqualTo(8000);
        assertThat(rank.dataParallelRank()).isEqualTo(2);
        assertThat(rank.dataParallelSize()).isEqualTo(4);
        assertThat(worker.dataParallelRank()).isNull();
        assertThat(worker.dataParallelSize()).isEqualTo(1);
        assertThat(Worker.normalizeUrl("HTTP://w0:8000/@2")).isEqualTo("http://w0:8000@2");
        assertThatThrownBy(() -> Worker.builder("http://w0:8000").dataParallelRank(4, 4).build())
                .hasMessage("data-parallel rank must be in [0, 4), was 4");
    }

    @Test
    void removingAnEngineByUrlRemovesItsRanks() {
        WorkerRegistry registry = new WorkerRegistry();
        registry.add(Worker.builder("http://e:1").dataParallelRank(0, 2).build());
        registry.add(Worker.builder("http://e:1").dataParallelRank(1, 2).build());
        Worker other = registry.add(Worker.builder("http://f:1").build());
        assertThat(registry.removeByUrl("http://e:1@1")).extracting(Worker::url).containsExactly("http://e:1@1");
        assertThat(registry.removeByUrl("http://e:1")).extracting(Worker::url).containsExactly("http://e:1@0");
        assertThat(registry.all()).containsExactly(other);
    }

    @Test
    void theEngineTypeIsKnownOnceSetOrDetected() {
        assertThat(worker.runtime()).isNull();
        assertThat(worker.runtimeOr(EngineRuntime.VLLM)).isEqualTo(EngineRuntime.VLLM);
        worker.setRuntime(EngineRuntime.SGLANG);
        assertThat(worker.runtimeOr(EngineRuntime.VLLM)).isEqualTo(EngineRuntime.SGLANG);
        assertThat(EngineRuntime.parse("VLLM")).isEqualTo(EngineRuntime.VLLM);
        assertThatThrownBy(() -> EngineRuntime.parse("trtllm"))
                .hasMessage("runtime must be one of sglang, vllm, was 'trtllm'");
    }
}
