package dev.caravan.routes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.camel.Exchange;
import org.apache.camel.builder.NotifyBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.model.TryDefinition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.tokens.TokensFeature;

/**
 * The attempt loop of the {@code inference} route (ingress.camel.yaml) against two engines, round robin (the first
 * attempt goes to A): a retryable failure before any byte reached the client is tried again on the other worker; once
 * the response head reached the client, nothing is tried again. Each attempt's end is copied to {@code mock:attempts}
 * (advised in after the loop's doTry, before decideRetry clears the attempt's properties).
 */
class AttemptLoopRouteTest extends GatewayRouteTestSupport {

    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    private static final String ANSWER = "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[]}";

    private static FakeEngine a;
    private static FakeEngine b;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void startEngines() throws Exception {
        a = FakeEngine.start();
        b = FakeEngine.start();
    }

    @AfterAll
    static void stopEngines() throws Exception {
        a.close();
        b.close();
    }

    @Override
    protected GatewayConfig config() {
        return baseConfig()
                .with(CoreFlags.WORKER_URLS, a.url() + "," + b.url())
                .with(CoreFlags.POLICY_NAME, "round_robin")
                .with(TokensFeature.TOKENS_SOURCE, "off")
                .with(ReliabilityFeature.RETRY_MAX_RETRIES, "3")
                .with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1")
                .with(ReliabilityFeature.RETRY_MAX_BACKOFF_MS, "1")
                .with(ReliabilityFeature.RETRY_JITTER_FACTOR, "0");
    }

    @Override
    protected void advise() throws Exception {
        adviceWith("inference", r -> r.weaveByType(TryDefinition.class).after().to("mock:attempts"));
    }

    private HttpRequest chat(boolean stream) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(CHAT + ",\"stream\":" + stream + "}"))
                .build();
    }

    private static String worker(Exchange attempt) {
        Worker w = CaravanExchangeProperties.WORKER.get(attempt);
        return w == null ? null : w.url();
    }

    private static String outcome(Exchange attempt) {
        return CaravanExchangeProperties.OUTCOME.get(attempt);
    }

    @Test
    void aRetryableStatusIsTriedAgainOnTheOtherWorkerWhoseAnswerTheClientGets() throws Exception {
        a.answer(FakeEngine.json(503, "{\"error\":\"overloaded\"}"));
        b.answer(FakeEngine.json(200, ANSWER));
        MockEndpoint attempts = getMockEndpoint("mock:attempts");
        attempts.expectedMessageCount(2);
        NotifyBuilder done = new NotifyBuilder(context).fromRoute("chat-completions").whenDone(1).create();

        HttpResponse<String> response = client.send(chat(false), HttpResponse.BodyHandlers.ofString());

        assertThat(done.matches(10, TimeUnit.SECONDS)).isTrue();
        attempts.assertIsSatisfied();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(ANSWER);
        assertThat(attempts.getExchanges()).extracting(AttemptLoopRouteTest::worker).containsExactly(a.url(), b.url());
        assertThat(attempts.getExchanges()).extracting(AttemptLoopRouteTest::outcome)
                .containsExactly(ForwardOutcomes.RETRYABLE_STATUS, ForwardOutcomes.COMPLETED);
        assertThat(a.requests()).containsExactly("POST /v1/chat/completions");
        assertThat(b.requests()).containsExactly("POST /v1/chat/completions");
    }

    @Test
    void theLastAllowedAttemptRelaysTheRetryableStatusItGot() throws Exception {
        a.answer(FakeEngine.json(503, "{\"error\":\"a overloaded\"}"));
        b.answer(FakeEngine.json(503, "{\"error\":\"b overloaded\"}"));
        MockEndpoint attempts = getMockEndpoint("mock:attempts");
        attempts.expectedMessageCount(3);
        NotifyBuilder done = new NotifyBuilder(context).fromRoute("chat-completions").whenDone(1).create();

        HttpResponse<String> response = client.send(chat(false), HttpResponse.BodyHandlers.ofString());

        assertThat(done.matches(10, TimeUnit.SECONDS)).isTrue();
        attempts.assertIsSatisfied();
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("{\"error\":\"a overloaded\"}");
        assertThat(attempts.getExchanges()).extracting(AttemptLoopRouteTest::worker)
                .containsExactly(a.url(), b.url(), a.url());
        assertThat(a.requests()).hasSize(2);
        assertThat(b.requests()).hasSize(1);
    }

    @Test
    void aStreamThatBreaksAfterItsFirstByteReachedTheClientIsNotTriedAgain() throws Exception {
        CompletableFuture<Void> breakNow = new CompletableFuture<>();
        a.answer(req -> {
            req.response().setChunked(true).putHeader("content-type", "text/event-stream")
                    .write("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n");
            breakNow.thenRun(() -> req.connection().close());
        });
        b.answer(FakeEngine.json(200, ANSWER));
        MockEndpoint attempts = getMockEndpoint("mock:attempts");
        attempts.expectedMessageCount(1);
        NotifyBuilder done = new NotifyBuilder(context).fromRoute("chat-completions").whenDone(1).create();

        HttpResponse<InputStream> response = client.send(chat(true), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        BufferedReader body = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        assertThat(body.readLine()).isEqualTo("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}");
        breakNow.complete(null);
        Throwable rest = catchThrowable(() -> drain(body));

        assertThat(done.matches(10, TimeUnit.SECONDS)).isTrue();
        attempts.assertIsSatisfied();
        assertThat(attempts.getExchanges()).extracting(AttemptLoopRouteTest::worker).containsExactly(a.url());
        assertThat(attempts.getExchanges()).extracting(AttemptLoopRouteTest::outcome)
                .containsExactly(ForwardOutcomes.UPSTREAM_FAILED);
        assertThat(b.requests()).isEmpty();
        assertThat(rest).as("the client's stream ends short").isInstanceOf(IOException.class);
    }

    private static void drain(BufferedReader body) throws IOException {
        while (body.readLine() != null) {
            // the rest of the stream, if any
        }
    }
}
