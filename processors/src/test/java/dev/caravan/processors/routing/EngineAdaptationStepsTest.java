package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.PREFERRED_WORKER;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_PATH;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.StartedCamel;

/** The steps that fit a request to the chosen worker: its engine's path, its data-parallel rank, a preferred worker. */
class EngineAdaptationStepsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static Exchange request(String kind, String path, Worker worker) {
        Exchange e = CAMEL.exchange();
        REQUEST_KIND.set(e, kind);
        UPSTREAM_PATH.set(e, path);
        WORKER.set(e, worker);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("model", "m");
        json.put("prompt", "hi");
        REQUEST_JSON.set(e, json);
        return e;
    }

    @Test
    void sendsTokenizeToEachEnginesOwnPathAndKeepsTheQuery() {
        ResolveEnginePathProcessor resolve = new ResolveEnginePathProcessor(EngineRuntime.SGLANG);
        Worker vllm = Worker.builder("http://v:1").runtime(EngineRuntime.VLLM).build();
        Worker sglang = Worker.builder("http://s:1").runtime(EngineRuntime.SGLANG).build();
        Worker unknown = Worker.builder("http://u:1").build();

        Exchange e = request("tokenize", "/v1/tokenize?x=1", vllm);
        resolve.process(e);
        assertThat(UPSTREAM_PATH.get(e)).isEqualTo("/tokenize?x=1");
        WORKER.set(e, sglang); // a retry on another engine
        resolve.process(e);
        assertThat(UPSTREAM_PATH.get(e)).isEqualTo("/v1/tokenize?x=1");
        Exchange c = request("classify", "/v1/classify", unknown);
        new ResolveEnginePathProcessor(EngineRuntime.VLLM).process(c);
        assertThat(UPSTREAM_PATH.get(c)).as("--backend vllm").isEqualTo("/classify");
        Exchange custom = request("tokenize", "/my/tokenizer", vllm);
        resolve.process(custom);
        assertThat(UPSTREAM_PATH.get(custom)).as("a route's own path stays").isEqualTo("/my/tokenizer");
        Exchange chat = request("chat", "/v1/chat/completions", vllm);
        resolve.process(chat);
        assertThat(UPSTREAM_PATH.get(chat)).isEqualTo("/v1/chat/completions");
    }

    @Test
    void pinsARanksRequestByHeaderAndForSglangByBodyAndUnpinsALaterAttempt() {
        PinDataParallelRankProcessor pin = new PinDataParallelRankProcessor(EngineRuntime.SGLANG);
        Worker rank1 = Worker.builder("http://e:1").dataParallelRank(1, 2).build();
        Exchange e = request("completions", "/v1/completions", rank1);

        pin.process(e);
        assertThat(e.getIn().getHeader(PinDataParallelRankProcessor.HEADER)).isEqualTo("1");
        String body = ((Buffer) UPSTREAM_BODY.get(e)).toString(StandardCharsets.UTF_8);
        assertThat(body).isEqualTo("{\"model\":\"m\",\"prompt\":\"hi\",\"data_parallel_rank\":1}");

        WORKER.set(e, Worker.builder("http://other:1").build()); // the retry went to a whole engine
        pin.process(e);
        assertThat(e.getIn().getHeaders()).doesNotContainKey(PinDataParallelRankProcessor.HEADER);
        assertThat(UPSTREAM_BODY.get(e)).isNull();

        Exchange vllm = request("completions", "/v1/completions",
                Worker.builder("http://v:1").runtime(EngineRuntime.VLLM).dataParallelRank(0, 2).build());
        pin.process(vllm);
        assertThat(vllm.getIn().getHeader(PinDataParallelRankProcessor.HEADER)).isEqualTo("0");
        assertThat(UPSTREAM_BODY.get(vllm)).as("vLLM reads the header").isNull();
    }

    @Test
    void pinsTheRankAPolicyChoseOnAWholeEngineAndARetryWithoutOneTakesItBack() {
        PinDataParallelRankProcessor pin = new PinDataParallelRankProcessor(EngineRuntime.VLLM);
        Worker engine = Worker.builder("http://e:1").dataParallelSize(2).build();
        Exchange e = request("completions", "/v1/completions", engine);
        DECISION.set(e, Decision.of(engine, "kv_aware", "kv_hit").withDataParallelRank(1));

        pin.process(e);
        assertThat(e.getIn().getHeader(PinDataParallelRankProcessor.HEADER)).isEqualTo("1");

        DECISION.set(e, Decision.of(engine, "kv_aware", "kv_miss_min_cost")); // the retry's decision names no rank
        pin.process(e);
        assertThat(e.getIn().getHeaders()).doesNotContainKey(PinDataParallelRankProcessor.HEADER);
    }

    @Test
    void leavesAClientsOwnRankHeaderAndARoutesOwnBodyAlone() {
        PinDataParallelRankProcessor pin = new PinDataParallelRankProcessor(EngineRuntime.SGLANG);
        Exchange client = request("completions", "/v1/completions", Worker.builder("http://w:1").build());
        client.getIn().setHeader(PinDataParallelRankProcessor.HEADER, "3");
        pin.process(client);
        assertThat(client.getIn().getHeader(PinDataParallelRankProcessor.HEADER)).isEqualTo("3");

        Exchange routed = request("completions", "/v1/completions",
                Worker.builder("http://e:1").dataParallelRank(0, 2).build());
        UPSTREAM_BODY.set(routed, "{\"prompt\":\"rewritten\"}");
        pin.process(routed);
        assertThat(UPSTREAM_BODY.get(routed)).isEqualTo("{\"prompt\":\"rewritten\"}");
        assertThat(routed.getIn().getHeader(PinDataParallelRankProcessor.HEADER)).isEqualTo("0");
    }

    @Test
    void aPreferredWorkerWinsWhileItIsACandidateElseThePolicyChooses() {
        WorkerRegistry workers = new WorkerRegistry();
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Worker b = workers.add(Worker.builder("http://b:1").build());
        PolicyRegistry policies = new PolicyRegistry(workers, m -> new LoadBalancingPolicy() {
            @Override
            public Decision select(java.util.List<Worker> candidates, SelectionContext context) {
                return Decision.of(candidates.get(0), "first", "first");
            }

            @Override
            public String name() {
                return "first";
            }
        });
        SelectWorkerProcessor select = new SelectWorkerProcessor(policies, d -> { });
        Exchange e = CAMEL.exchange();
        PREFERRED_WORKER.set(e, b.url());
        select.process(e);
        assertThat(WORKER.get(e)).isSameAs(b);
        assertThat(DECISION.get(e).label()).isEqualTo("first:previous_response");

        b.setHealthy(false);
        Exchange again = CAMEL.exchange();
        PREFERRED_WORKER.set(again, b.url());
        select.process(again);
        assertThat(WORKER.get(again)).isSameAs(a);
        assertThat(DECISION.get(again).label()).isEqualTo("first:first");
    }
}
