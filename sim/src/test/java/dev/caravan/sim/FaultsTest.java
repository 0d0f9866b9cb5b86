package dev.caravan.sim;

import static dev.caravan.sim.Http.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FaultsTest {

    private static SimEngine engine;

    @BeforeAll
    static void start() {
        engine = SimEngine.start(SimConfig.builder().timeScale(200).seed(3).build());
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    @AfterEach
    void reset() {
        engine.resetFaults();
        engine.stats().reset();
    }

    private static String completions() {
        return engine.url() + "/v1/completions";
    }

    @Test
    void errorRateOneAnswersEveryRequestWithTheConfiguredStatus() {
        Http.post(engine.url() + "/sim/faults", Map.of("error_rate", 1.0, "error_status", 503));
        HttpResponse<String> r = Http.post(completions(), Map.of("prompt", "hello"));
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat((String) at(Http.map(r.body()), "error", "message")).startsWith("injected fault");
        assertThat(engine.stats().injectedErrors()).isEqualTo(1);
        assertThat(engine.stats().responses(503)).isEqualTo(1);
    }

    @Test
    void errorRateIsAFractionOfRequests() {
        engine.setFaults(Faults.NONE.merge(Map.of("error_rate", 0.3)));
        int errors = 0;
        for (int i = 0; i < 200; i++) {
            if (Http.post(completions(), Map.of("prompt", "p" + i, "max_tokens", 1)).statusCode() == 500) {
                errors++;
            }
        }
        assertThat(errors).isBetween(35, 85);
        assertThat(engine.stats().injectedErrors()).isEqualTo(errors);
    }

    @Test
    void failingHealthIs503UntilReset() {
        Http.post(engine.url() + "/sim/faults", Map.of("health_failing", true));
        assertThat(Http.get(engine.url() + "/health").statusCode()).isEqualTo(503);
        assertThat(Http.get(engine.url() + "/health_generate").statusCode()).isEqualTo(503);
        HttpResponse<String> cleared = Http.send(HttpRequest.newBuilder(URI.create(engine.url() + "/sim/faults"))
                .DELETE().build());
        assertThat((Boolean) at(Http.map(cleared.body()), "health_failing")).isFalse();
        assertThat(Http.get(engine.url() + "/health").statusCode()).isEqualTo(200);
        assertThat(Http.get(engine.url() + "/health_generate").statusCode()).isEqualTo(200);
    }

    @Test
    void hangingRequestsAreNeverAnswered() {
        engine.setFaults(Faults.NONE.merge(Map.of("hang", true)));
        HttpRequest req = HttpRequest.newBuilder(URI.create(completions())).timeout(Duration.ofMillis(300))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"wait\"}")).build();
        assertThatThrownBy(() -> Http.send(req)).hasRootCauseInstanceOf(java.net.http.HttpTimeoutException.class);
        assertThat(engine.stats().hung()).isEqualTo(1);
    }

    @Test
    void addedLatencyDelaysTheAnswer() {
        engine.setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 300)));
        long t0 = System.nanoTime();
        assertThat(Http.post(completions(), Map.of("prompt", "slow", "max_tokens", 1)).statusCode()).isEqualTo(200);
        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(300);
    }

    @Test
    void dropAfterChunksClosesTheStreamWithoutDone() throws Exception {
        engine.setFaults(Faults.NONE.merge(Map.of("drop_after_chunks", 2)));
        String raw;
        try (RawHttp c = new RawHttp(engine.port())) {
            raw = c.post("/v1/completions", "{\"prompt\":\"stream\",\"max_tokens\":2000,\"stream\":true}").readToClose();
        }
        assertThat(raw).startsWith("HTTP/1.1 200");
        assertThat(raw.split("data: ", -1)).hasSize(3);
        assertThat(raw).doesNotContain("[DONE]");
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.stats().droppedConnections() == 1
                && engine.stats().cancelled() == 1);
    }

    @Test
    void dropAfterZeroChunksClosesBeforeAnyByte() throws Exception {
        engine.setFaults(Faults.NONE.merge(Map.of("drop_after_chunks", 0)));
        try (RawHttp c = new RawHttp(engine.port())) {
            assertThat(c.post("/v1/completions", "{\"prompt\":\"x\"}").readToClose()).isEmpty();
        }
    }

    @Test
    void unknownFaultIsA400NamingIt() {
        HttpResponse<String> r = Http.post(engine.url() + "/sim/faults", Map.of("explode", true));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat((String) at(Http.map(r.body()), "error", "message")).startsWith("unknown fault 'explode'");
        HttpResponse<String> bad = Http.post(engine.url() + "/sim/faults", Map.of("error_rate", 2));
        assertThat((String) at(Http.map(bad.body()), "error", "message")).isEqualTo("error_rate must be in [0,1], was 2.0");
    }

    @Test
    void mergeKeepsUnmentionedFaultsAndResetStartsOver() {
        Faults f = Faults.NONE.merge(Map.of("hang", true)).merge(Map.of("added_latency_ms", 5));
        assertThat(f.hang()).isTrue();
        assertThat(f.addedLatencyMs()).isEqualTo(5);
        assertThat(f.merge(Map.of("reset", true, "error_rate", 0.5))).isEqualTo(
                new Faults(0.5, 500, false, false, 0, -1, false, false));
    }
}
