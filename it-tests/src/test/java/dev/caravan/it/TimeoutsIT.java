package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CaravanFlags;

/**
 * The end-to-end request timeout and the idle-stream timeout against a stub engine that stalls: before the response
 * head, after two SSE chunks, and in a chunked JSON body.
 */
class TimeoutsIT {

    private static final String STREAM = "{\"prompt\":\"hi\",\"stream\":true}";

    /** Answers inference by body: a head plus two SSE chunks, or a chunked JSON start, then silence; else no head. */
    private static void stall(HttpServerRequest req) {
        if (!req.path().startsWith("/v1/")) {
            req.response().setStatusCode(req.path().equals("/health") ? 200 : 404).end(); // only inference stalls
            return;
        }
        req.body().onSuccess(b -> {
            if (b.toString().contains("\"stream\":true")) {
                req.response().setChunked(true).putHeader("Content-Type", "text/event-stream");
                req.response().write("data: {\"choices\":[{\"text\":\"one\"}]}\n\n");
                req.response().write("data: {\"choices\":[{\"text\":\"two\"}]}\n\n");
            } else if (b.toString().contains("chunked-json")) {
                req.response().setChunked(true).putHeader("Content-Type", "application/json");
                req.response().write("{\"choices\":[");
            }
            // otherwise nothing at all: no head
        });
    }

    @Test
    void nothingSentBeforeTheDeadlineIs504AndNotRetried() {
        try (StubEngine stub = StubEngine.start(TimeoutsIT::stall);
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(CaravanFlags.REQUEST_TIMEOUT_SECS, "1"))) {
            long start = System.nanoTime();
            HttpResponse<String> r = gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}");
            long ms = (System.nanoTime() - start) / 1_000_000;

            assertThat(r.statusCode()).isEqualTo(504);
            assertThat(r.body()).contains("\"code\":\"upstream_timeout\"").contains("request timeout of 1 s");
            assertThat(ms).isBetween(900L, 5000L);
            assertThat(gw.gateway().beans().meterRegistry().find("caravan.retries").counters()).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> gw.gateway().beans().meterRegistry()
                    .find("caravan.forward.outcomes").tag("outcome", "timeout").counter() != null);
        }
    }

    @Test
    void aStreamThatGoesSilentEndsWithAnErrorEventAndCountsAgainstTheWorker() {
        try (StubEngine stub = StubEngine.start(TimeoutsIT::stall);
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(CaravanFlags.STREAM_IDLE_TIMEOUT_SECS, "1"))) {
            GatewayClient.Streamed s = gw.client().stream("/v1/completions", STREAM);

            assertThat(s.status()).isEqualTo(200);
            assertThat(s.data()).hasSize(3);
            assertThat(s.data().get(2)).contains("\"code\":\"upstream_timeout\"").contains("sent nothing for 1 s");
            Worker w = gw.workers().all().get(0);
            var meters = gw.gateway().beans().meterRegistry();
            // the client can see the end of the stream a moment before the gateway has counted it
            await().atMost(Duration.ofSeconds(5)).until(() -> meters.find("caravan.forward.outcomes")
                    .tag("outcome", "idle_timeout").counter() != null);
            assertThat(meters.find("caravan.forward.outcomes").tag("outcome", "idle_timeout").counter().count())
                    .isEqualTo(1);
            assertThat(meters.find("caravan.worker.cb.outcomes").tags("worker", w.url(), "outcome", "failure")
                    .counter().count()).isEqualTo(1);
            assertThat(w.load()).isZero();
        }
    }

    @Test
    void theEndToEndDeadlineAlsoEndsAStreamThatStarted() {
        try (StubEngine stub = StubEngine.start(TimeoutsIT::stall);
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(CaravanFlags.REQUEST_TIMEOUT_SECS, "1").with(CaravanFlags.STREAM_IDLE_TIMEOUT_SECS, "0"))) {
            GatewayClient.Streamed s = gw.client().stream("/v1/completions", STREAM);

            assertThat(s.data()).hasSize(3);
            assertThat(s.data().get(2)).contains("request exceeded 1 s");
        }
    }

    @Test
    void aNonSseBodyThatGoesSilentIsCutSoItCannotLookComplete() {
        try (StubEngine stub = StubEngine.start(TimeoutsIT::stall);
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(CaravanFlags.REQUEST_TIMEOUT_SECS, "1"))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                    gw.client().postJson("/v1/completions", "{\"prompt\":\"chunked-json\"}"))
                    .hasRootCauseInstanceOf(java.io.IOException.class);
            assertThat(gw.workers().all().get(0).load()).isZero();
        }
    }

    @Test
    void theIdleLimitDoesNotApplyBeforeTheHeadOfANonStreamedRequest() {
        try (StubEngine stub = StubEngine.start(req -> req.body().onSuccess(b -> {
            if (!req.path().startsWith("/v1/")) {
                req.response().setStatusCode(404).end();
            } else {
                io.vertx.core.Vertx.currentContext().owner().setTimer(1500, id -> req.response()
                        .putHeader("Content-Type", "application/json").end("{\"choices\":[]}"));
            }
        }));
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(CaravanFlags.STREAM_IDLE_TIMEOUT_SECS, "1"))) {
            HttpResponse<String> r = gw.client().postJson("/v1/completions", "{\"prompt\":\"long generation\"}");
            assertThat(r.statusCode()).as("engines answer non-streamed requests only when done").isEqualTo(200);
        }
    }
}
