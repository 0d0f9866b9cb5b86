package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.RawHttpStream;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.sim.Faults;

/** True streaming through the gateway: SSE chunks pass as produced, disconnects propagate, load is released. */
class StreamingIT {

    /** One engine generating a token every 20 ms. */
    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(20));

    private static GatewayHarness gateway;

    @BeforeAll
    static void startGateway() {
        gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls()).with(CoreFlags.DECISION_HEADERS, "true"));
    }

    @AfterAll
    static void stopGateway() {
        gateway.close();
    }

    @AfterEach
    void resetFaults() {
        SIMS.resetFaults();
    }

    private static String streamingChat(int maxTokens) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("stream", true);
        body.put("max_tokens", maxTokens);
        body.put("messages", List.of(Map.of("role", "user", "content", "Describe a long road.")));
        return GatewayClient.json(body);
    }

    private static Worker worker() {
        return gateway.workers().all().get(0);
    }

    @Test
    void chunksArriveAsTheEngineProducesThem() {
        GatewayClient engine = new GatewayClient(SIMS.urls().get(0));
        engine.stream("/v1/chat/completions", streamingChat(2)); // warm-up: JIT and connection set-up
        gateway.client().stream("/v1/chat/completions", streamingChat(2));
        long directStart = System.nanoTime();
        GatewayClient.Streamed direct = engine.stream("/v1/chat/completions", streamingChat(20));
        long directFirst = direct.lines().get(0).nanos() - directStart;

        long start = System.nanoTime();
        GatewayClient.Streamed s = gateway.client().stream("/v1/chat/completions", streamingChat(20));

        assertThat(s.status()).isEqualTo(200);
        assertThat(s.header("content-type")).startsWith("text/event-stream");
        assertThat(s.header(ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(SIMS.urls().get(0));
        assertThat(s.data()).last().isEqualTo("[DONE]");
        List<GatewayClient.Line> lines = s.lines();
        long first = lines.get(0).nanos();
        long last = lines.get(lines.size() - 1).nanos();
        // 20 tokens at 20 ms: a buffering proxy would deliver every line at once, after ~400 ms
        assertThat(Duration.ofNanos(last - first)).isGreaterThan(Duration.ofMillis(250));
        // the first chunk comes as early through the gateway as directly (generous margin for a shared machine)
        assertThat(Duration.ofNanos(first - start)).isLessThan(Duration.ofNanos(directFirst).plusMillis(150));
        // the lease is released right after the last byte is written: the client may read that byte first
        await().atMost(Duration.ofSeconds(5)).until(() -> worker().load() == 0);
    }

    @Test
    void aClientThatHangsUpReleasesTheLoadAndCancelsTheEngineRequest() {
        try (RawHttpStream stream = RawHttpStream.post(gateway.port(), "/v1/chat/completions", streamingChat(2000))) {
            stream.readLineStartingWith("data:");
            assertThat(worker().load()).isEqualTo(1);
            assertThat(SIMS.engine(0).running()).isEqualTo(1);
        }
        // 2,000 tokens would take 40 s; the hang-up must end it now
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(worker().load()).isZero();
            assertThat(SIMS.engine(0).running()).isZero();
        });
    }

    @Test
    void anEngineThatBreaksMidStreamCutsTheClientStreamAndReleasesTheLoad() {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("drop_after_chunks", 3)));
        List<GatewayClient.Line> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            gateway.client().stream("/v1/chat/completions", streamingChat(50), received);
        } catch (java.io.UncheckedIOException expected) {
            // the reset connection may surface as an I/O error, or as a body that just ends: the lines count either way
        }
        List<String> data = received.stream().map(GatewayClient.Line::text).filter(t -> t.startsWith("data:")).toList();
        // the chunks the engine sent before it broke reached the client, and nothing claims the stream completed
        assertThat(data).hasSizeBetween(1, 3).noneMatch(d -> d.contains("[DONE]"));
        await().atMost(Duration.ofSeconds(5)).until(() -> worker().load() == 0);
    }

    @Test
    void nonStreamingResponsesTakeTheSamePath() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("prompt", "The road goes ever on");
        body.put("max_tokens", 5);
        var r = gateway.client().postJson("/v1/completions", GatewayClient.json(body));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(GatewayClient.parse(r.body()).path("usage").path("completion_tokens").asInt()).isEqualTo(5);
        assertThat(r.headers().firstValue("x-request-id")).hasValueSatisfying(v -> assertThat(v).startsWith("cmpl-"));
    }

    @Test
    void aClientRequestIdIsKept() {
        var r = gateway.client().postJson("/generate", "{\"text\":\"hi\",\"sampling_params\":{\"max_new_tokens\":2}}",
                "X-Request-Id", "trace-42");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-request-id")).hasValue("trace-42");
    }
}
