package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.Test;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.StalledListener;
import dev.caravan.it.StubEngine;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimFleet;

/**
 * The end-to-end request timeout, the idle-stream timeout and the non-streamed attempt limit against a stub engine that
 * stalls: before the response head, after two SSE chunks, and in a chunked JSON body; and the connect timeout against a
 * listening socket whose accept queue is full.
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
                     .with(CoreFlags.REQUEST_TIMEOUT_SECS, "1"))) {
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
                     .with(ForwardFeature.STREAM_IDLE_TIMEOUT_SECS, "1"))) {
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
                     .with(CoreFlags.REQUEST_TIMEOUT_SECS, "1").with(ForwardFeature.STREAM_IDLE_TIMEOUT_SECS, "0"))) {
            GatewayClient.Streamed s = gw.client().stream("/v1/completions", STREAM);

            assertThat(s.data()).hasSize(3);
            assertThat(s.data().get(2)).contains("request exceeded 1 s");
        }
    }

    @Test
    void aNonSseBodyThatGoesSilentIsCutSoItCannotLookComplete() {
        try (StubEngine stub = StubEngine.start(TimeoutsIT::stall);
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(CoreFlags.REQUEST_TIMEOUT_SECS, "1"))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                    gw.client().postJson("/v1/completions", "{\"prompt\":\"chunked-json\"}"))
                    .hasRootCauseInstanceOf(java.io.IOException.class);
            // the relay resets the client before it releases the lease, so the client can see the cut first
            await().atMost(Duration.ofSeconds(5)).until(() -> gw.workers().all().get(0).load() == 0);
        }
    }

    @Test
    void aNonStreamedRequestWithoutAnswerFailsAtTheAttemptLimitAndIsRetried() {
        try (StubEngine stub = StubEngine.start(TimeoutsIT::stall);
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(ForwardFeature.NON_STREAM_ATTEMPT_TIMEOUT_SECS, "1")
                     .with(ReliabilityFeature.RETRY_MAX_RETRIES, "2"))) {
            long start = System.nanoTime();
            HttpResponse<String> r = gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}");
            long ms = (System.nanoTime() - start) / 1_000_000;

            assertThat(r.statusCode()).isEqualTo(504);
            assertThat(r.body()).contains("\"code\":\"upstream_timeout\"").contains("did not answer within 1 s");
            assertThat(ms).as("two attempts of 1 s, not the 1800 s request timeout").isBetween(1900L, 10_000L);
            Worker w = gw.workers().all().get(0);
            var meters = gw.gateway().beans().meterRegistry();
            assertThat(meters.find("caravan.retries").tag("reason", "attempt_timeout").counter().count()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> meters.find("caravan.worker.cb.outcomes")
                    .tags("worker", w.url(), "outcome", "failure").counter().count() == 2);
            assertThat(w.load()).isZero();
        }
    }

    @Test
    void aWorkerThatDoesNotAcceptTheConnectionFailsAtTheConnectTimeoutAndTheRequestMovesOn() throws Exception {
        try (SimFleet fleet = SimFleet.start(1, SimConfig.builder().decodeMsPerToken(1).defaultMaxTokens(2).build());
             StalledListener stalled = StalledListener.open();
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stalled.url()))
                     .with(ForwardFeature.CONNECT_TIMEOUT_SECS, "1")
                     .with(ReliabilityFeature.DISABLE_RETRIES, "true"))) {
            long start = System.nanoTime();
            HttpResponse<String> alone = gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}");
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(alone.statusCode()).isEqualTo(502);
            assertThat(alone.body()).contains("\"code\":\"upstream_error\"").contains("timed out");
            assertThat(ms).as("the 1 s connect timeout, not the 1800 s request timeout").isBetween(900L, 10_000L);
            Worker w = gw.workers().findByUrl(stalled.url()).orElseThrow();
            var meters = gw.gateway().beans().meterRegistry();
            await().atMost(Duration.ofSeconds(5)).until(() -> meters.find("caravan.worker.cb.outcomes")
                    .tags("worker", w.url(), "outcome", "failure").counter() != null);
            assertThat(w.load()).isZero();
        }
        try (SimFleet fleet = SimFleet.start(1, SimConfig.builder().decodeMsPerToken(1).defaultMaxTokens(2).build());
             StalledListener stalled = StalledListener.open();
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stalled.url(),
                             fleet.urls().get(0)))
                     .with(CoreFlags.DECISION_HEADERS, "true")
                     .with(CoreFlags.POLICY_NAME, "round_robin")
                     .with(ForwardFeature.CONNECT_TIMEOUT_SECS, "1"))) {
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}");
                assertThat(r.statusCode()).as("request %d", i).isEqualTo(200);
                assertThat(r.headers().firstValue("X-Caravan-Worker")).contains(fleet.urls().get(0));
            }
            var meters = gw.gateway().beans().meterRegistry();
            Worker w = gw.workers().findByUrl(stalled.url()).orElseThrow();
            double failed = meters.find("caravan.worker.cb.outcomes").tags("worker", w.url(), "outcome", "failure")
                    .counter().count();
            assertThat(failed).as("round robin sent at least one of four requests there first")
                    .isGreaterThanOrEqualTo(1);
            assertThat(meters.find("caravan.retries").tag("reason", "upstream_failed").counter().count())
                    .as("every attempt on the stalled worker was retried").isEqualTo(failed);
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
                     .with(ForwardFeature.STREAM_IDLE_TIMEOUT_SECS, "1"))) {
            HttpResponse<String> r = gw.client().postJson("/v1/completions", "{\"prompt\":\"long generation\"}");
            assertThat(r.statusCode()).as("engines answer non-streamed requests only when done").isEqualTo(200);
        }
    }
}
