package dev.caravan.it.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.forward.ForwardStreamProcessor;

/**
 * Two syncing replicas and what the engines hold, seen through either replica: a response stored through one replica
 * is continued ({@code previous_response_id}) and retrieved ({@code GET /v1/responses/{id}}) through the other and
 * reaches the engine that stored it, as a client behind a load balancer over the replicas does; and engine caches
 * flushed through one replica are forgotten by the other's policy too.
 */
class ReplicaEngineStateIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.timeScale(50).defaultMaxTokens(4));

    private static SyncFleet fleet;

    @BeforeAll
    static void startFleet() {
        fleet = new SyncFleet(2, SIMS.urls(), "--decision-headers", "true").start();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SyncFleet.member(fleet.replica(0)).getCluster().getMembers().size() == 2);
    }

    @AfterAll
    static void stopFleet() {
        if (fleet != null) {
            fleet.close();
        }
    }

    private static HttpResponse<String> respond(GatewayHarness replica, Map<String, Object> body) {
        HttpResponse<String> r = replica.client().postJson("/v1/responses", GatewayClient.json(body));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }

    private static String header(HttpResponse<String> r, String name) {
        return r.headers().firstValue(name).orElseThrow();
    }

    @Test
    void aResponseStoredThroughOneReplicaIsContinuedAndRetrievedThroughTheOther() {
        for (int conversation = 0; conversation < 6; conversation++) {
            GatewayHarness first = fleet.replica(conversation % 2);
            GatewayHarness other = fleet.replica(1 - conversation % 2);
            String topic = String.valueOf((char) ('a' + conversation)).repeat(24); // no shared prefix: spread by load
            HttpResponse<String> stored = respond(first, Map.of("model", SIMS.model(), "input", topic));
            String worker = header(stored, ForwardStreamProcessor.WORKER_HEADER);
            String id = GatewayClient.parse(stored.body()).path("id").asText();
            // a client reads the answer before it continues; the ids reach the other replica within milliseconds
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> other.client().get("/v1/responses/" + id).statusCode() == 200);
            HttpResponse<String> next = respond(other, Map.of("model", SIMS.model(), "input", "and then?",
                    "previous_response_id", id));
            assertThat(header(next, ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(worker);
            assertThat(header(next, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("cache_aware:previous_response");
            String nextId = GatewayClient.parse(next.body()).path("id").asText();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> first.client().get("/v1/responses/" + nextId).statusCode() == 200);
            HttpResponse<String> third = respond(first, Map.of("model", SIMS.model(), "input", "and finally?",
                    "previous_response_id", nextId));
            assertThat(header(third, ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(worker);
        }
    }

    private static String decision(GatewayHarness replica, String prompt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("prompt", prompt);
        HttpResponse<String> r = replica.client().postJson("/v1/completions", GatewayClient.json(body));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return header(r, ForwardStreamProcessor.DECISION_HEADER);
    }

    @Test
    void cachesFlushedThroughOneReplicaAreForgottenByTheOther() {
        String prompt = "Flush me. " + "A long shared preamble that both replicas learn. ".repeat(120);
        decision(fleet.replica(0), prompt);
        decision(fleet.replica(1), prompt);
        assertThat(decision(fleet.replica(1), prompt)).startsWith("cache_aware:cache_hit");
        HttpResponse<String> flushed = fleet.replica(0).client().postJson("/flush_cache", "");
        assertThat(flushed.statusCode()).as(flushed.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> SyncFleet.metric(fleet.replica(1),
                "caravan_sync_messages_received_total", "channel=\"flushes\"") >= 1);
        assertThat(decision(fleet.replica(1), prompt)).doesNotContain("cache_hit");
    }
}
