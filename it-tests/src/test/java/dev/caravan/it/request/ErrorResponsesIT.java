package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.sim.Faults;

/** Every error the gateway answers itself: status, SGLang's JSON shape, and the X-Caravan-Error-Code header. */
class ErrorResponsesIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b);

    private static final String CHAT = chat(SIMS.model());

    private static String chat(String model) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                + "\"max_tokens\":2}";
    }

    /** One engine; small body limit; one-second upstream timeout. */
    private static GatewayHarness gateway;
    /** No static workers: workers come from the admin API with model ids. */
    private static GatewayHarness empty;
    /** An API key, and a worker on a port nobody listens on. */
    private static GatewayHarness guarded;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.MAX_PAYLOAD_SIZE, "4096")
                .with(CoreFlags.REQUEST_TIMEOUT_SECS, "1"));
        empty = GatewayHarness.start(GatewayHarness.config(List.of()));
        guarded = GatewayHarness.start(GatewayHarness.config(List.of("http://127.0.0.1:" + closedPort()))
                .with(CoreFlags.API_KEY, "sk-test"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        empty.close();
        guarded.close();
    }

    @AfterEach
    void resetFaults() {
        SIMS.resetFaults();
    }

    private static int closedPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertError(HttpResponse<String> r, int status, String code) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue(code);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode error = GatewayClient.parse(r.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo(code);
        assertThat(error.path("type").asText()).isEqualTo(HttpResponseStatus.valueOf(status).reasonPhrase());
        assertThat(error.path("message").asText()).isNotBlank().doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void malformedJsonIs400() {
        assertError(gateway.client().postJson("/v1/chat/completions", "{\"messages\": [}"), 400, "invalid_json");
    }

    @Test
    void wrongFieldTypesAre400NotServerErrors() {
        assertError(gateway.client().postJson("/v1/chat/completions", "{\"messages\":\"hi\"}"), 400, "invalid_request");
        assertError(gateway.client().postJson("/v1/completions", "{\"prompt\":{\"a\":1}}"), 400, "invalid_request");
        assertError(gateway.client().postJson("/generate", "{\"input_ids\":[\"x\"]}"), 400, "invalid_request");
        assertError(gateway.client().postJson("/v1/embeddings", "{\"input\":3}"), 400, "invalid_request");
        assertError(gateway.client().postJson("/v1/chat/completions", "{\"model\":1,\"messages\":[]}"), 400,
                "invalid_request");
    }

    @Test
    void unknownRouteIs404() {
        assertError(gateway.client().get("/v2/nothing"), 404, "not_found");
    }

    @Test
    void wrongMethodIs405() {
        assertError(gateway.client().get("/v1/chat/completions"), 405, "method_not_allowed");
    }

    @Test
    void bodyOverTheLimitIs413AndTheExactLimitPasses() {
        String prefix = "{\"model\":\"" + SIMS.model() + "\",\"max_tokens\":1,\"prompt\":\"";
        assertError(gateway.client().postJson("/v1/completions", prefix + "x".repeat(5000) + "\"}"), 413,
                "payload_too_large");
        String exact = prefix + "y".repeat(4096 - prefix.length() - 2) + "\"}";
        assertThat(exact).hasSize(4096);
        assertThat(gateway.client().postJson("/v1/completions", exact).statusCode()).isEqualTo(200);
    }

    @Test
    void formEncodedAndMissingContentTypesAre415() {
        assertError(gateway.client().post("/v1/chat/completions", "application/x-www-form-urlencoded", CHAT), 415,
                "unsupported_media_type");
        assertError(gateway.client().post("/v1/chat/completions", "text/plain", CHAT), 415, "unsupported_media_type");
    }

    @Test
    void noWorkersIs503() {
        assertError(empty.client().postJson("/v1/chat/completions", CHAT), 503, "no_available_workers");
    }

    @Test
    void allWorkersUnhealthyIs503() {
        gateway.workers().all().get(0).setHealthy(false);
        try {
            assertError(gateway.client().postJson("/v1/chat/completions", CHAT), 503, "no_available_workers");
        } finally {
            gateway.workers().all().get(0).setHealthy(true);
        }
    }

    @Test
    void aModelNoWorkerDeclaresIs404WhenEveryWorkerDeclaresOne() {
        HttpResponse<String> added = empty.client().postJson("/workers",
                GatewayClient.json(Map.of("url", SIMS.urls().get(0), "model_id", SIMS.model())));
        assertThat(added.statusCode()).isEqualTo(202);
        String id = GatewayClient.parse(added.body()).path("worker_id").asText();
        try {
            assertError(empty.client().postJson("/v1/chat/completions", chat("gpt-4")), 404, "model_not_found");
            assertThat(empty.client().postJson("/v1/chat/completions", chat(SIMS.model())).statusCode())
                    .isEqualTo(200);
        } finally {
            empty.client().delete("/workers/" + id);
        }
    }

    @Test
    void missingOrWrongApiKeyIs401() {
        assertError(guarded.client().postJson("/v1/chat/completions", CHAT), 401, "invalid_api_key");
        assertError(guarded.client().postJson("/v1/chat/completions", CHAT, "Authorization", "Bearer nope"), 401,
                "invalid_api_key");
        assertError(guarded.client().get("/workers"), 401, "invalid_api_key");
        assertThat(guarded.client().get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void anUnreachableWorkerIs502() {
        assertError(guarded.client().postJson("/v1/chat/completions", CHAT, "Authorization", "Bearer sk-test"), 502,
                "upstream_error");
        assertThat(guarded.workers().all().get(0).load()).isZero();
    }

    @Test
    void anEngineThatClosesBeforeAnsweringIs502() {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("drop_after_chunks", 0)));
        assertError(gateway.client().postJson("/v1/chat/completions", CHAT), 502, "upstream_error");
    }

    @Test
    void anEngineThatDoesNotAnswerInTimeIs504() {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("hang", true)));
        assertError(gateway.client().postJson("/v1/chat/completions", CHAT), 504, "upstream_timeout");
        assertThat(gateway.workers().all().get(0).load()).isZero();
    }

    @Test
    void engineErrorsPassThroughUnchanged() {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", 429)));
        HttpResponse<String> r = gateway.client().postJson("/v1/chat/completions", CHAT);
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("X-Caravan-Error-Code")).isEmpty();
    }
}
