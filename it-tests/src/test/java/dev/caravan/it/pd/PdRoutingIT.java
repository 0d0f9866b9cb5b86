package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.PdFleetExtension;
import dev.caravan.it.RawHttpStream;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.pd.RelayDecodeProcessor;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

/**
 * SGLang-style P/D end to end against simulated prefill and decode engines: the rendezvous works, decode's answer streams
 * back with prefill's prompt logprobs spliced in, and every failure mode cancels the other leg and releases the load.
 */
class PdRoutingIT {

    /** Prefill at 2,000 tokens/s (a 1,000-token prompt takes half a second), decode at 10 ms per token. */
    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(1, 1, b -> b.prefillTokensPerSec(2_000),
            b -> b.decodeMsPerToken(10));

    private static GatewayHarness gateway;
    private static SimEngine regular;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(PD.gatewayConfig().with(CoreFlags.DECISION_HEADERS, "true"));
        regular = SimEngine.start(SimConfig.builder().build());
    }

    @AfterAll
    static void stop() {
        gateway.close();
        regular.close();
    }

    @AfterEach
    void reset() {
        PD.reset();
    }

    private static Worker worker(WorkerRole role) {
        return gateway.workers().all().stream().filter(w -> w.role() == role).findFirst().orElseThrow();
    }

    private static void awaitNoLoad() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(worker(WorkerRole.PREFILL).load()).as("prefill load").isZero();
            assertThat(worker(WorkerRole.DECODE).load()).as("decode load").isZero();
        });
    }

    private static String generate(String text, int maxTokens, boolean stream, boolean logprob) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("text", text);
        body.put("sampling_params", Map.of("max_new_tokens", maxTokens));
        body.put("stream", stream);
        body.put("return_logprob", logprob);
        return GatewayClient.json(body);
    }

    private static String chat(String content, int maxTokens, boolean stream) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("messages", List.of(Map.of("role", "user", "content", content)));
        body.put("max_tokens", maxTokens);
        body.put("stream", stream);
        return GatewayClient.json(body);
    }

    /** The prompt logprobs a regular (non-disaggregated) engine reports for the same prompt. */
    private static JsonNode regularInputLogprobs(String text) {
        HttpResponse<String> r = new GatewayClient(regular.url()).postJson("/generate", generate(text, 1, false, true));
        return GatewayClient.parse(r.body()).path("meta_info").path("input_token_logprobs");
    }

    @Test
    void generateReturnsDecodesAnswerWithPrefillsPromptLogprobsSplicedIn() {
        String text = "The quick brown fox jumps over the lazy dog near the riverbank";
        HttpResponse<String> r = gateway.client().postJson("/generate", generate(text, 5, false, true));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode meta = GatewayClient.parse(r.body()).path("meta_info");
        assertThat(meta.path("completion_tokens").asInt()).isEqualTo(5);
        // decode pulled the KV: the whole prompt was cached there
        assertThat(meta.path("cached_tokens").asInt()).isEqualTo(meta.path("prompt_tokens").asInt());
        JsonNode input = meta.path("input_token_logprobs");
        assertThat(input.size()).isEqualTo(meta.path("prompt_tokens").asInt());
        assertThat(input.get(0).get(0).isNull()).isTrue();
        assertThat(input).isEqualTo(regularInputLogprobs(text));
        assertThat(meta.path("output_token_logprobs").size()).isEqualTo(5);
        assertThat(r.headers().firstValue(RelayDecodeProcessor.WORKER_HEADER)).hasValue(
                "prefill=" + PD.prefill(0).url() + "; decode=" + PD.decode(0).url());
        awaitNoLoad();
    }

    @Test
    void streamedGenerateCarriesThePromptLogprobsInEveryChunk() {
        String text = "A streamed answer still needs the logprobs of its prompt tokens";
        GatewayClient.Streamed s = gateway.client().stream("/generate", generate(text, 6, true, true));

        assertThat(s.status()).isEqualTo(200);
        assertThat(s.header("content-type")).startsWith("text/event-stream");
        List<String> data = s.data();
        assertThat(data).last().isEqualTo("[DONE]");
        List<String> chunks = data.subList(0, data.size() - 1);
        assertThat(chunks).hasSize(6);
        JsonNode expected = regularInputLogprobs(text);
        for (String chunk : chunks) {
            assertThat(GatewayClient.parse(chunk).path("meta_info").path("input_token_logprobs")).isEqualTo(expected);
        }
        awaitNoLoad();
    }

    @Test
    void streamedChatPassesThroughAsTheDecodeEngineProducesIt() {
        GatewayClient.Streamed s = gateway.client().stream("/v1/chat/completions", chat("Tell me a story", 20, true));

        assertThat(s.status()).isEqualTo(200);
        assertThat(s.data()).last().isEqualTo("[DONE]");
        List<GatewayClient.Line> lines = s.lines();
        // 20 tokens at 10 ms each: a buffering relay would deliver every line at once
        assertThat(Duration.ofNanos(lines.get(lines.size() - 1).nanos() - lines.get(0).nanos()))
                .isGreaterThan(Duration.ofMillis(120));
        assertThat(PD.decode(0).stats().finished()).isEqualTo(1);
        assertThat(PD.prefill(0).stats().completionTokens()).isEqualTo(1);
        awaitNoLoad();
    }

    @Test
    void aPrefillFailureAnswers502AndLeavesNoLoad() {
        // PdCancellationIT shows the waiting decode engine being cancelled; here prefill may even fail first
        PD.prefill(0).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", 500)));
        HttpResponse<String> r = gateway.client().postJson("/v1/chat/completions", chat("hello", 8, false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue("prefill_server_error");
        assertThat(PD.decode(0).stats().bootstrapTimeouts()).isZero();
        awaitNoLoad();
    }

    @Test
    void anEarlyDecodeRejectionAbortsTheRunningPrefill() {
        // 400: a rejection no retry would change (a retryable 503 would be retried on a new pair)
        PD.decode(0).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", 400)));
        // ~5,000 tokens: two and a half seconds of prefill, still running when decode rejects (within milliseconds)
        // even if the machine stalls for a while; a prefill left running would show as finished
        String longPrompt = "word ".repeat(4_000);
        HttpResponse<String> r = gateway.client().postJson("/generate", generate(longPrompt, 4, false, false));

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("injected fault");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(PD.prefill(0).stats().cancelled()).isEqualTo(1));
        assertThat(PD.prefill(0).stats().finished()).isZero();
        assertThat(gateway.client().get("/metrics").body()).contains("caravan_pd_early_rejections_total 1.0");
        awaitNoLoad();
        await().atMost(Duration.ofSeconds(10)).until(() -> PD.prefill(0).running() == 0);
    }

    @Test
    void aClientThatHangsUpMidStreamCancelsDecodeAndReleasesBothLeases() {
        try (RawHttpStream stream = RawHttpStream.post(gateway.port(), "/v1/chat/completions",
                chat("Describe a very long road", 2000, true))) {
            stream.readLineStartingWith("data:");
            assertThat(worker(WorkerRole.DECODE).load()).isEqualTo(1);
            assertThat(PD.decode(0).running()).isEqualTo(1);
        }
        // 2,000 tokens would take 20 s; the hang-up ends it now
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(PD.decode(0).running()).isZero();
            assertThat(PD.decode(0).stats().cancelled()).isEqualTo(1);
        });
        awaitNoLoad();
    }

    @Test
    void aClientThatHangsUpDuringPrefillCancelsBothLegs() {
        String longPrompt = "token ".repeat(1_500);
        try (RawHttpStream ignored = RawHttpStream.post(gateway.port(), "/generate",
                generate(longPrompt, 4, true, false))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> PD.prefill(0).running() == 1);
        }
        // both connections are closed at once; the decode engine stops waiting either because it sees its own
        // connection close or, if the prefill engine's failed room reaches it first, with a bootstrap failure
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(PD.prefill(0).stats().cancelled()).isEqualTo(1);
            assertThat(PD.decode(0).stats().cancelledWaiting() + PD.decode(0).stats().bootstrapFailures())
                    .isEqualTo(1);
        });
        assertThat(PD.decode(0).stats().bootstrapTimeouts()).isZero();
        awaitNoLoad();
    }

    @Test
    void aDecodeThatBreaksMidStreamCutsTheClientStream() {
        PD.decode(0).setFaults(Faults.NONE.merge(Map.of("drop_after_chunks", 3)));
        List<GatewayClient.Line> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            gateway.client().stream("/v1/chat/completions", chat("hello", 40, true), received);
        } catch (java.io.UncheckedIOException expected) {
            // the reset connection may surface as an I/O error, or as a body that just ends: the lines count either way
        }
        List<String> data = received.stream().map(GatewayClient.Line::text).filter(t -> t.startsWith("data:")).toList();
        // the chunks decode sent before it broke reached the client, and nothing claims the stream completed
        assertThat(data).hasSizeBetween(1, 3).noneMatch(d -> d.contains("[DONE]"));
        awaitNoLoad();
    }

    /** The value of one Prometheus series ({@code name{tags}} exactly as exposed), 0 when it is not there yet. */
    private static double series(String name) {
        String prefix = name + " ";
        return gateway.client().get("/metrics").body().lines().filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()))).sum();
    }

    private static String selections(String leg, SimEngine engine) {
        return "caravan_pd_selections_total{leg=\"" + leg + "\",worker=\"" + engine.url() + "\"}";
    }

    @Test
    void eachRequestCountsOneSelectionPerLegAndOnePrefillWait() {
        double prefillBefore = series(selections("prefill", PD.prefill(0)));
        double decodeBefore = series(selections("decode", PD.decode(0)));
        double waitsBefore = series("caravan_pd_prefill_wait_seconds_count");
        double waitedBefore = series("caravan_pd_prefill_wait_seconds_sum");
        int promptTokens = 0;
        for (int i = 0; i < 3; i++) {
            // raw text (no chat template) with a distinct first word: no prompt's prefix is cached, each prefill
            // computes every token
            HttpResponse<String> r = gateway.client().postJson("/generate",
                    generate("prompt" + i + " " + "word ".repeat(200), 2, false, false));
            assertThat(r.statusCode()).isEqualTo(200);
            promptTokens += GatewayClient.parse(r.body()).path("meta_info").path("prompt_tokens").asInt();
        }

        assertThat(series(selections("prefill", PD.prefill(0))) - prefillBefore).isEqualTo(3.0);
        assertThat(series(selections("decode", PD.decode(0))) - decodeBefore).isEqualTo(3.0);
        assertThat(series("caravan_pd_prefill_wait_seconds_count") - waitsBefore).isEqualTo(3.0);
        // prefill runs at 2,000 tokens/s: decode waited at least that long for its KV
        assertThat(series("caravan_pd_prefill_wait_seconds_sum") - waitedBefore)
                .isGreaterThanOrEqualTo(promptTokens / 2_000.0);
        awaitNoLoad();
    }

    @Test
    void batchesRendezvousPerSequence() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("text", List.of("first prompt of the batch", "second prompt", "third and last prompt"));
        body.put("sampling_params", Map.of("max_new_tokens", 3));
        body.put("return_logprob", true);
        HttpResponse<String> r = gateway.client().postJson("/generate", GatewayClient.json(body));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode results = GatewayClient.parse(r.body());
        assertThat(results.size()).isEqualTo(3);
        List<String> texts = List.of("first prompt of the batch", "second prompt", "third and last prompt");
        for (int i = 0; i < 3; i++) {
            JsonNode meta = results.get(i).path("meta_info");
            assertThat(meta.path("cached_tokens").asInt()).isEqualTo(meta.path("prompt_tokens").asInt());
            assertThat(meta.path("input_token_logprobs")).isEqualTo(regularInputLogprobs(texts.get(i)));
        }
        assertThat(PD.decode(0).stats().sequences()).isEqualTo(3);
        awaitNoLoad();
    }

    @Test
    void healthGenerateChecksBothEnginesOfAPair() {
        HttpResponse<String> ok = gateway.client().get("/health_generate");
        assertThat(ok.statusCode()).isEqualTo(200);
        JsonNode legs = GatewayClient.parse(ok.body()).path("workers");
        assertThat(legs.findValuesAsText("worker_type")).containsExactlyInAnyOrder("prefill", "decode");

        PD.decode(0).setFaults(Faults.NONE.merge(Map.of("health_failing", true)));
        HttpResponse<String> failing = gateway.client().get("/health_generate");
        assertThat(failing.statusCode()).isEqualTo(503);
        assertThat(failing.body()).contains(PD.decode(0).url());
    }

    @Test
    void readinessNeedsAHealthyPrefillAndAHealthyDecode() {
        assertThat(gateway.client().get("/readiness").statusCode()).isEqualTo(200);
        Worker decode = worker(WorkerRole.DECODE);
        decode.setHealthy(false);
        try {
            assertThat(gateway.client().get("/readiness").statusCode()).isEqualTo(503);
            HttpResponse<String> r = gateway.client().postJson("/generate", generate("hi", 2, false, false));
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue("server_selection_failed");
        } finally {
            decode.setHealthy(true);
        }
    }

    @Test
    void manySimultaneousRequestsAllRendezvousAndLeaveNoLoad() throws Exception {
        List<java.util.concurrent.CompletableFuture<Integer>> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String body = generate("request number " + i + " of a burst", 3, i % 2 == 0, false);
            all.add(java.util.concurrent.CompletableFuture.supplyAsync(() ->
                    gateway.client().postJson("/generate", body).statusCode()));
        }
        for (var f : all) {
            assertThat(f.get()).isEqualTo(200);
        }
        assertThat(PD.decode(0).stats().finished()).isEqualTo(20);
        awaitNoLoad();
    }
}
