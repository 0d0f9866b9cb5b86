package dev.caravan.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

/** The worker admin API changes routing live; removal drains; control-plane fan-outs reach every worker. */
class AdminApiIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(10).defaultMaxTokens(4));

    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "1"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @AfterEach
    void removeAllWorkers() {
        gateway.workers().all().forEach(w -> gateway.workers().remove(w.id()));
    }

    private String register(String url) {
        HttpResponse<String> r = gateway.client().postJson("/workers", GatewayClient.json(Map.of("url", url)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        String id = GatewayClient.parse(r.body()).path("worker_id").asText();
        assertThat(r.headers().firstValue("Location")).hasValue("/workers/" + id);
        return id;
    }

    private String completionWorker() {
        HttpResponse<String> r = gateway.client().postJson("/v1/completions",
                "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hello\",\"max_tokens\":1}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow();
    }

    @Test
    void registeredWorkersReceiveTrafficAtOnceAndRemovedOnesNoLonger() {
        assertThat(gateway.client().get("/readiness").statusCode()).isEqualTo(503);
        String a = register(SIMS.urls().get(0));
        assertThat(completionWorker()).isEqualTo(SIMS.urls().get(0));
        assertThat(gateway.client().get("/readiness").statusCode()).isEqualTo(200);

        String b = register(SIMS.urls().get(1));
        Set<String> used = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            used.add(completionWorker());
        }
        assertThat(used).containsExactlyInAnyOrderElementsOf(SIMS.urls());

        JsonNode list = GatewayClient.parse(gateway.client().get("/workers").body());
        assertThat(list.path("total").asInt()).isEqualTo(2);
        assertThat(list.path("stats").path("regular_count").asInt()).isEqualTo(2);
        assertThat(gateway.client().putJson("/workers/" + b, "{\"priority\":5,\"labels\":{\"zone\":\"b\"}}").statusCode())
                .isEqualTo(202);
        JsonNode one = GatewayClient.parse(gateway.client().get("/workers/" + b).body());
        assertThat(one.path("priority").asInt()).isEqualTo(5);
        assertThat(one.path("labels").path("zone").asText()).isEqualTo("b");

        assertThat(gateway.client().delete("/workers/" + a).statusCode()).isEqualTo(202);
        for (int i = 0; i < 4; i++) {
            assertThat(completionWorker()).isEqualTo(SIMS.urls().get(1));
        }
        assertThat(gateway.client().get("/workers/" + a).statusCode()).isEqualTo(404);
    }

    @Test
    void removingAWorkerLetsItsInFlightStreamFinish() {
        String a = register(SIMS.urls().get(0));
        String body = "{\"model\":\"" + SIMS.model() + "\",\"stream\":true,\"max_tokens\":60,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"long\"}]}";
        try (RawHttpStream stream = RawHttpStream.post(gateway.port(), "/v1/chat/completions", body)) {
            stream.readLineStartingWith("data:");
            Worker removed = gateway.workers().get(a).orElseThrow();
            assertThat(removed.load()).isEqualTo(1);

            register(SIMS.urls().get(1));
            assertThat(gateway.client().delete("/workers/" + a).statusCode()).isEqualTo(202);
            assertThat(completionWorker()).isEqualTo(SIMS.urls().get(1));

            assertThat(stream.readLineStartingWith("data: [DONE]")).isEqualTo("data: [DONE]");
            await().atMost(Duration.ofSeconds(5)).until(() -> removed.load() == 0);
        }
    }

    @Test
    void legacyEndpointsAddListAndRemoveByUrl() {
        String url = SIMS.urls().get(0);
        HttpResponse<String> added = gateway.client().post("/add_worker?url=" + url, null, "");
        assertThat(added.statusCode()).isEqualTo(200);
        assertThat(added.body()).isEqualTo("Successfully added worker: " + url);
        assertThat(GatewayClient.parse(gateway.client().get("/list_workers").body()).path("urls").get(0).asText())
                .isEqualTo(url);
        assertThat(completionWorker()).isEqualTo(url);
        assertThat(gateway.client().post("/remove_worker?url=" + url, null, "").statusCode()).isEqualTo(200);
        assertThat(gateway.workers().size()).isZero();
    }

    @Test
    void controlPlaneFanOutsReachEveryWorker() {
        register(SIMS.urls().get(0));
        register(SIMS.urls().get(1));

        // -1 is SGLang's "load not fetched" (the engine's answer did not come in time): wait for both real loads
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode loads = GatewayClient.parse(gateway.client().get("/get_loads").body());
            assertThat(loads.path("workers")).hasSize(2);
            loads.path("workers").forEach(w -> assertThat(w.path("load").asLong()).isGreaterThanOrEqualTo(0));
        });

        JsonNode flushed = GatewayClient.parse(gateway.client().post("/flush_cache", null, "").body());
        assertThat(flushed.path("status").asText()).isEqualTo("success");
        assertThat(flushed.path("workers_flushed").asInt()).isEqualTo(2);

        JsonNode models = GatewayClient.parse(gateway.client().get("/v1/models").body());
        assertThat(models.path("data")).hasSize(1);
        assertThat(models.path("data").get(0).path("id").asText()).isEqualTo(SIMS.model());
        // OpenAI's retrieve: the id percent-encoded (as the SDKs send it) or with its slashes as they are
        String encoded = URLEncoder.encode(SIMS.model(), StandardCharsets.UTF_8);
        for (String path : List.of("/v1/models/" + encoded, "/v1/models/" + SIMS.model())) {
            HttpResponse<String> one = gateway.client().get(path);
            assertThat(one.statusCode()).as(path).isEqualTo(200);
            // each call asks the engine again, and the engine stamps "created" with the second it answered
            assertThat(withoutCreated(GatewayClient.parse(one.body())))
                    .isEqualTo(withoutCreated(models.path("data").get(0)));
        }
        HttpResponse<String> unknown = gateway.client().get("/v1/models/no-such-model");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(GatewayClient.parse(unknown.body()).path("error").path("message").asText())
                .isEqualTo("The model `no-such-model` does not exist.");
    }

    private static JsonNode withoutCreated(JsonNode model) {
        ObjectNode copy = model.deepCopy();
        copy.remove("created");
        return copy;
    }

    @Test
    void theLoadMonitorPublishesEachEnginesOwnLoad() {
        register(SIMS.urls().get(0));
        Worker w = gateway.workers().all().get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> w.engineLoad() != null);
        assertThat(w.engineLoad().running()).isGreaterThanOrEqualTo(0);
        assertThat(w.engineLoad().waiting()).isGreaterThanOrEqualTo(0);
        assertThat(w.engineLoad().kvUsage()).isBetween(0.0, 1.0);
        assertThat(GatewayClient.parse(gateway.client().get("/workers").body()).path("workers").get(0)
                .path("engine_load").path("running").isInt()).isTrue();
    }
}
