package dev.caravan.sim.pd;

import static dev.caravan.sim.Http.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.caravan.sim.EngineRole;
import dev.caravan.sim.Http;
import dev.caravan.sim.RawHttp;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PdRendezvousTest {

    private static final String PROMPT = "Summarise the caravan's route through the dunes and the oasis. ".repeat(4);
    private static SimEngine prefill;
    private static SimEngine decode;
    private static SimEngine regular;

    @BeforeAll
    static void start() {
        SimConfig base = SimConfig.builder().timeScale(100).build();
        prefill = SimEngine.start(base.toBuilder().role(EngineRole.PREFILL).bootstrapPort(0).build());
        decode = SimEngine.start(base.toBuilder().role(EngineRole.DECODE).bootstrapTimeout(Duration.ofSeconds(30))
                .build());
        regular = SimEngine.start(base);
    }

    @AfterAll
    static void stop() {
        prefill.close();
        decode.close();
        regular.close();
    }

    private static Map<String, Object> generate(long room, int maxNew) {
        Map<String, Object> body = new HashMap<>();
        body.put("text", PROMPT);
        body.put("sampling_params", Map.of("max_new_tokens", maxNew));
        body.put("return_logprob", true);
        body.put("bootstrap_host", "127.0.0.1");
        body.put("bootstrap_port", prefill.bootstrapPort());
        body.put("bootstrap_room", room);
        return body;
    }

    private static CompletableFuture<HttpResponse<String>> postAsync(String url, Map<String, Object> body)
            throws Exception {
        return HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.ofString(Http.JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void decodeWaitsForThePrefillRoomAndTheLogprobSpliceEqualsARegularEngine() throws Exception {
        long room = 4_611_686_018_427_387_904L;
        long before = decode.stats().requests();
        CompletableFuture<HttpResponse<String>> d = postAsync(decode.url() + "/generate", generate(room, 6));
        await().atMost(Duration.ofSeconds(5)).until(() -> decode.stats().requests() == before + 1);
        Map<String, Object> p = Http.map(Http.post(prefill.url() + "/generate", generate(room, 6)).body());
        HttpResponse<String> dr = d.get();
        assertThat(dr.statusCode()).isEqualTo(200);
        Map<String, Object> dm = Http.map(dr.body());
        int promptTokens = (PROMPT.length() + 3) / 4;
        assertThat((Integer) at(p, "meta_info", "completion_tokens")).isEqualTo(1);
        assertThat((List<?>) at(p, "meta_info", "input_token_logprobs")).hasSize(promptTokens);
        assertThat((List<?>) at(dm, "meta_info", "input_token_logprobs")).isEmpty();
        assertThat((List<?>) at(dm, "meta_info", "output_token_logprobs")).hasSize(6);
        assertThat((Integer) at(dm, "meta_info", "cached_tokens")).isEqualTo(promptTokens);
        Map<String, Object> plain = new HashMap<>(Map.of("text", PROMPT, "return_logprob", true));
        Map<String, Object> r = Http.map(Http.post(regular.url() + "/generate", plain).body());
        List<Object> spliced = new ArrayList<>((List<?>) at(p, "meta_info", "input_token_logprobs"));
        spliced.addAll(at(dm, "meta_info", "input_token_logprobs"));
        assertThat(spliced).isEqualTo(at(r, "meta_info", "input_token_logprobs"));
    }

    @Test
    void decodeWithoutBootstrapFieldsIs400() {
        HttpResponse<String> r = Http.post(decode.url() + "/generate", Map.of("text", "hi"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat((String) at(Http.map(r.body()), "error", "message")).contains("bootstrap_host, bootstrap_port and "
                + "bootstrap_room");
        Map<String, Object> partial = generate(7, 1);
        partial.remove("bootstrap_port");
        assertThat((String) at(Http.map(Http.post(decode.url() + "/generate", partial).body()), "error", "message"))
                .endsWith("bootstrap_port is missing");
    }

    @Test
    void batchNeedsOneRoomPerSequence() {
        Map<String, Object> body = generate(11, 1);
        body.put("text", List.of("one", "two"));
        HttpResponse<String> r = Http.post(decode.url() + "/generate", body);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat((String) at(Http.map(r.body()), "error", "message"))
                .isEqualTo("bootstrap_room must be an array of 2 rooms for a batch of 2");
    }

    @Test
    void batchDecodeWaitsForEveryRoom() throws Exception {
        Map<String, Object> d = generate(0, 2);
        d.put("text", List.of(PROMPT, PROMPT + "more"));
        d.put("bootstrap_room", List.of(21, 22));
        CompletableFuture<HttpResponse<String>> dr = postAsync(decode.url() + "/generate", d);
        Map<String, Object> p = generate(0, 2);
        p.put("text", List.of(PROMPT, PROMPT + "more"));
        p.put("bootstrap_room", List.of(21, 22));
        assertThat(Http.post(prefill.url() + "/generate", p).statusCode()).isEqualTo(200);
        List<Object> out = Http.list(dr.get().body());
        assertThat(out).hasSize(2);
        assertThat((Integer) at(out, 1, "meta_info", "completion_tokens")).isEqualTo(2);
    }

    @Test
    void clientDisconnectWhileWaitingAbortsAndIsCounted() throws Exception {
        long before = decode.stats().cancelledWaiting();
        try (RawHttp c = new RawHttp(decode.port())) {
            c.post("/generate", Http.JSON.writeValueAsString(generate(99, 4)));
            await().atMost(Duration.ofSeconds(5)).until(() -> Http.map(Http.get(prefill.url() + "/sim/stats").body())
                    .get("bootstrap_waiters").equals(1));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> decode.stats().cancelledWaiting() == before + 1);
    }

    @Test
    void decodeGivesUpAfterTheBootstrapTimeout() {
        try (SimEngine impatient = SimEngine.start(SimConfig.builder().role(EngineRole.DECODE)
                .bootstrapTimeout(Duration.ofMillis(200)).build())) {
            HttpResponse<String> r = Http.post(impatient.url() + "/generate", generate(12345, 1));
            assertThat(r.statusCode()).isEqualTo(504);
            assertThat((String) at(Http.map(r.body()), "error", "message")).contains("bootstrap room 12345");
            assertThat(impatient.stats().bootstrapTimeouts()).isEqualTo(1);
        }
    }

    @Test
    void vllmTwoStepPrefillReturnsTransferParamsThatDecodeWarm() {
        String prompt = PROMPT + "two-step";
        Map<String, Object> first = Http.map(Http.post(regular.url() + "/v1/completions", Map.of("prompt", prompt,
                "max_tokens", 1, "kv_transfer_params", Map.of("do_remote_decode", true))).body());
        Map<String, Object> kvp = at(first, "kv_transfer_params");
        assertThat(kvp).containsEntry("do_remote_prefill", true).containsEntry("do_remote_decode", false)
                .containsEntry("remote_host", "127.0.0.1").containsEntry("remote_port", regular.port())
                .containsKeys("remote_request_id", "remote_engine_id", "remote_block_ids");
        Map<String, Object> second = Http.map(Http.post(decode.url() + "/v1/completions", Map.of("prompt", prompt,
                "max_tokens", 5, "kv_transfer_params", kvp)).body());
        int promptTokens = (prompt.length() + 3) / 4;
        assertThat((Integer) at(second, "usage", "completion_tokens")).isEqualTo(5);
        assertThat((Integer) at(second, "usage", "prompt_tokens_details", "cached_tokens")).isEqualTo(promptTokens);
    }

    @Test
    void prefillDyingBeforeItsKvIsReadyFailsTheDecodeWith502() throws Exception {
        try (SimEngine slowPrefill = SimEngine.start(SimConfig.builder().role(EngineRole.PREFILL).bootstrapPort(0)
                .prefillTokensPerSec(1).build())) {
            Map<String, Object> body = generate(777, 2);
            body.put("bootstrap_port", slowPrefill.bootstrapPort());
            CompletableFuture<HttpResponse<String>> d = postAsync(decode.url() + "/generate", body);
            try (RawHttp c = new RawHttp(slowPrefill.port())) {
                c.post("/generate", Http.JSON.writeValueAsString(body));
                await().atMost(Duration.ofSeconds(5)).until(() -> slowPrefill.running() == 1);
            }
            HttpResponse<String> r = d.get();
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat((String) at(Http.map(r.body()), "error", "message"))
                    .isEqualTo("KV transfer failed for bootstrap room 777: client disconnected");
            await().atMost(Duration.ofSeconds(5)).until(() -> slowPrefill.stats().cancelled() == 1);
        }
    }
}
