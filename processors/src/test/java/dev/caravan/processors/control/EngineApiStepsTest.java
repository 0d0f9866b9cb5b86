package dev.caravan.processors.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.StartedCamel;

/** The engines' own API: which engine a worker is, its ranks, its flush endpoint, and SGLang's info endpoints. */
class EngineApiStepsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final WorkerRegistry workers = new WorkerRegistry();
    private final AtomicLong now = new AtomicLong(1_000);

    private static Exchange answered(Object... subs) {
        CollectControlResultsStrategy s = new CollectControlResultsStrategy();
        Exchange agg = null;
        for (int i = 0; i < subs.length; i += 3) {
            Exchange e = CAMEL.exchange();
            ControlCall.PROPERTY.set(e, (ControlCall) subs[i]);
            e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, subs[i + 1]);
            e.getMessage().setBody(subs[i + 2]);
            agg = s.aggregate(agg, e);
        }
        return agg;
    }

    @SuppressWarnings("unchecked")
    private static List<ControlCall> plan(org.apache.camel.Processor p) throws Exception {
        Exchange e = CAMEL.exchange();
        p.process(e);
        return e.getMessage().getBody(List.class);
    }

    @Test
    void flushesEachEngineOnceAtItsOwnEndpoint() throws Exception {
        workers.add(Worker.builder("http://sglang:1").runtime(EngineRuntime.SGLANG).build());
        workers.add(Worker.builder("http://vllm:1").runtime(EngineRuntime.VLLM).build());
        workers.add(Worker.builder("http://unknown:1").build());
        workers.add(Worker.builder("http://dp:1").dataParallelRank(0, 2).build());
        workers.add(Worker.builder("http://dp:1").dataParallelRank(1, 2).build());

        assertThat(plan(new PlanFlushCacheProcessor(workers, EngineRuntime.VLLM)))
                .extracting(c -> c.method() + " " + c.url())
                .containsExactly("POST http://sglang:1/flush_cache", "POST http://vllm:1/reset_prefix_cache",
                        "POST http://unknown:1/reset_prefix_cache", "POST http://dp:1/reset_prefix_cache");
    }

    @Test
    void serverInfoAsksTheFirstHealthySglangWorkerThenAnyHealthyOneThenAPrefillWorker() throws Exception {
        List<String> paths = List.of("/get_server_info", "/server_info");
        Worker vllm = workers.add(Worker.builder("http://vllm:1").runtime(EngineRuntime.VLLM).build());
        Worker sick = workers.add(Worker.builder("http://sick:1").runtime(EngineRuntime.SGLANG).build());
        sick.setHealthy(false);
        Worker sglang = workers.add(Worker.builder("http://sglang:1").runtime(EngineRuntime.SGLANG).build());
        PlanWorkerInfoProcessor planner = new PlanWorkerInfoProcessor(workers, EngineRuntime.SGLANG, paths);

        assertThat(plan(planner)).extracting(ControlCall::url)
                .containsExactly("http://sglang:1/get_server_info", "http://sglang:1/server_info");
        workers.remove(sglang.id());
        assertThat(plan(planner)).extracting(ControlCall::worker).containsOnly(vllm);
        workers.remove(vllm.id());
        Worker prefill = workers.add(Worker.builder("http://p:1").role(WorkerRole.PREFILL).build());
        assertThat(plan(planner)).extracting(ControlCall::worker).containsOnly(prefill);
        prefill.setHealthy(false);
        assertThat(plan(planner)).isEmpty();
    }

    @Test
    void relaysThePreferredAnswerThenAnyAnswer() throws Exception {
        Worker w = workers.add(Worker.builder("http://w:1").build());
        ControlCall old = new ControlCall(w, "GET", "/get_server_info", null);
        ControlCall renamed = new ControlCall(w, "GET", "/server_info", null);
        RelayWorkerAnswerProcessor relay = new RelayWorkerAnswerProcessor(List.of("/get_server_info", "/server_info"));

        Exchange both = answered(renamed, 200, "{\"v\":2}", old, 200, "{\"v\":1}");
        relay.process(both);
        assertThat(both.getMessage().getBody(String.class)).isEqualTo("{\"v\":1}");

        Exchange newOnly = answered(old, 404, "{\"detail\":\"Not Found\"}", renamed, 200, "{\"v\":2}");
        relay.process(newOnly);
        assertThat(newOnly.getMessage().getBody(String.class)).isEqualTo("{\"v\":2}");

        Exchange neither = answered(old, 404, "nf1", renamed, 404, "nf2");
        relay.process(neither);
        assertThat(neither.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(404);

        assertThatThrownBy(() -> relay.process(CAMEL.exchange())).hasMessage("No healthy workers to ask");
    }

    private EngineProbes probes(boolean dpAware) {
        EngineProbes p = new EngineProbes(dpAware, Duration.ofSeconds(30), Duration.ofSeconds(100), now::get);
        workers.addListener(p);
        return p;
    }

    @Test
    void detectsSglangFromItsServerInfoAndVllmFromItsVersion() throws Exception {
        EngineProbes probes = probes(false);
        Worker s = workers.add(Worker.builder("http://s:1").build());
        Worker v = workers.add(Worker.builder("http://v:1").build());
        workers.add(Worker.builder("http://known:1").runtime(EngineRuntime.VLLM).build());
        List<ControlCall> calls = plan(new PlanEngineProbesProcessor(probes));
        assertThat(calls).extracting(ControlCall::url).containsExactly("http://s:1/get_server_info",
                "http://s:1/version", "http://v:1/get_server_info", "http://v:1/version");

        new ApplyEngineProbesProcessor(workers, probes).process(answered(
                calls.get(0), 200, "{\"dp_size\":1}", calls.get(1), 404, "",
                calls.get(2), 404, "{\"detail\":\"Not Found\"}", calls.get(3), 200, "{\"version\":\"0.9\"}"));

        assertThat(s.runtime()).isEqualTo(EngineRuntime.SGLANG);
        assertThat(v.runtime()).isEqualTo(EngineRuntime.VLLM);
        assertThat(probes.pendingCount()).isZero();
    }

    @Test
    void anEngineThatDoesNotAnswerIsAskedAgainEachIntervalUntilTheTimeout() throws Exception {
        EngineProbes probes = probes(true);
        Worker w = workers.add(Worker.builder("http://w:1").build());
        ApplyEngineProbesProcessor apply = new ApplyEngineProbesProcessor(workers, probes);
        List<ControlCall> calls = plan(new PlanEngineProbesProcessor(probes));
        apply.process(answered(calls.get(0), 503, "", calls.get(1), 503, ""));
        assertThat(plan(new PlanEngineProbesProcessor(probes))).as("not again before the interval").isEmpty();

        now.addAndGet(Duration.ofSeconds(30).toNanos());
        calls = plan(new PlanEngineProbesProcessor(probes));
        assertThat(calls).hasSize(2);
        now.addAndGet(Duration.ofSeconds(100).toNanos());
        apply.process(answered(calls.get(0), 503, "", calls.get(1), 503, ""));

        assertThat(probes.pendingCount()).as("given up").isZero();
        assertThat(w.runtime()).isNull();
        assertThat(workers.all()).containsExactly(w);
    }

    @Test
    void dpAwareSplitsAnEngineIntoOneWorkerPerRankWithItsSettings() throws Exception {
        EngineProbes probes = probes(true);
        Worker engine = workers.add(Worker.builder("http://e:8000").modelId("m").apiKey("k").priority(7).build());
        List<ControlCall> calls = plan(new PlanEngineProbesProcessor(probes));
        new ApplyEngineProbesProcessor(workers, probes).process(answered(
                calls.get(0), 200, "{\"dp_size\":3,\"model_path\":\"m\"}", calls.get(1), 404, ""));

        assertThat(workers.all()).extracting(Worker::url)
                .containsExactly("http://e:8000@0", "http://e:8000@1", "http://e:8000@2");
        assertThat(workers.all()).allSatisfy(r -> {
            assertThat(r.engineUrl()).isEqualTo("http://e:8000");
            assertThat(r.modelId()).isEqualTo("m");
            assertThat(r.apiKey()).isEqualTo("k");
            assertThat(r.priority()).isEqualTo(7);
            assertThat(r.runtime()).isEqualTo(EngineRuntime.SGLANG);
            assertThat(r.dataParallelSize()).isEqualTo(3);
        });
        assertThat(workers.all()).extracting(Worker::dataParallelRank).containsExactly(0, 1, 2);
        assertThat(workers.get(engine.id())).isEmpty();
        assertThat(plan(new PlanEngineProbesProcessor(probes))).as("ranks are never asked").isEmpty();
    }

    @Test
    void withoutDpAwareAnEngineWithSeveralRanksStaysOneWorker() throws Exception {
        EngineProbes probes = probes(false);
        Worker engine = workers.add(Worker.builder("http://e:8000").build());
        List<ControlCall> calls = plan(new PlanEngineProbesProcessor(probes));
        new ApplyEngineProbesProcessor(workers, probes).process(answered(
                calls.get(0), 200, "{\"dp_size\":4}", calls.get(1), 404, ""));
        assertThat(workers.all()).containsExactly(engine);
    }
}
