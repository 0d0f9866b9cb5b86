package dev.caravan.routes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.camel.builder.NotifyBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.model.MulticastDefinition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.components.http.ErrorBody;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.pd.PdVerdict;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.tokens.TokensFeature;

/**
 * The SGLang P/D attempt body ({@code attempt-pd-sglang}, pd.camel.yaml) against a fake prefill and a fake decode
 * engine, retries off: the multicast sends both legs at once, a leg that fails while the other is running cancels it
 * (its connection closed, so its engine stops; each test's failing engine answers only once the other has the
 * request), and the verdict the multicast leaves decides what the client gets. The verdict is
 * copied to {@code mock:verdict} (advised in after the multicast).
 */
class PdRouteTest extends GatewayRouteTestSupport {

    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String ANSWER = "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[]}";

    private static FakeEngine prefill;
    private static FakeEngine decode;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void startEngines() throws Exception {
        prefill = FakeEngine.start();
        decode = FakeEngine.start();
    }

    @AfterAll
    static void stopEngines() throws Exception {
        prefill.close();
        decode.close();
    }

    @Override
    protected GatewayConfig config() {
        return baseConfig()
                .with(PdFeature.PD_DISAGGREGATION, "true")
                .with(PdFeature.PREFILL, prefill.url() + " 9000")
                .with(PdFeature.DECODE, decode.url())
                .with(TokensFeature.TOKENS_SOURCE, "off")
                .with(ReliabilityFeature.DISABLE_RETRIES, "true");
    }

    @Override
    protected void advise() throws Exception {
        adviceWith("attempt-pd-sglang", r -> r.weaveByType(MulticastDefinition.class).after().to("mock:verdict"));
    }

    private HttpResponse<String> chat() throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port()
                        + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private PdVerdict verdict() throws Exception {
        MockEndpoint verdicts = getMockEndpoint("mock:verdict");
        verdicts.expectedMessageCount(1);
        verdicts.assertIsSatisfied();
        return PdVerdict.PROPERTY.get(verdicts.getExchanges().get(0));
    }

    @Test
    void bothLegsGoOutAtOnceAndTheClientGetsDecodesAnswer() throws Exception {
        prefill.answer(FakeEngine.json(200, "{\"choices\":[]}"));
        decode.answer(FakeEngine.json(200, ANSWER));
        NotifyBuilder done = new NotifyBuilder(context).fromRoute("chat-completions").whenDone(1).create();

        HttpResponse<String> response = chat();

        assertThat(done.matches(10, TimeUnit.SECONDS)).isTrue();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(ANSWER);
        PdVerdict verdict = verdict();
        assertThat(verdict.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(verdict.earlyRejection()).isFalse();
        assertThat(prefill.requests()).containsExactly("POST /v1/chat/completions");
        assertThat(decode.requests()).containsExactly("POST /v1/chat/completions");
        assertThat(prefill.abandoned() + decode.abandoned()).isZero();
    }

    @Test
    void aFailedPrefillCancelsTheDecodeLegItWasPairedWith() throws Exception {
        CompletableFuture<Void> decodeWaiting = new CompletableFuture<>();
        prefill.answer(req -> decodeWaiting.thenRun(
                () -> FakeEngine.json(500, "{\"error\":\"prefill broke\"}").handle(req)));
        decode.answer(req -> decodeWaiting.complete(null)); // and never answers
        NotifyBuilder done = new NotifyBuilder(context).fromRoute("chat-completions").whenDone(1).create();

        HttpResponse<String> response = chat();

        assertThat(done.matches(10, TimeUnit.SECONDS)).isTrue();
        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(response.headers().firstValue(ErrorBody.ERROR_CODE_HEADER)).hasValue("prefill_server_error");
        PdVerdict verdict = verdict();
        assertThat(verdict.kind()).isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
        assertThat(verdict.decode().cancelled()).isTrue();
        assertThat(decode.requests()).containsExactly("POST /v1/chat/completions");
        await().atMost(Duration.ofSeconds(5)).until(() -> decode.abandoned() == 1);
    }

    @Test
    void aDecodeThatRejectsFirstCancelsThePrefillAndItsAnswerStands() throws Exception {
        CompletableFuture<Void> prefillRunning = new CompletableFuture<>();
        prefill.answer(req -> prefillRunning.complete(null)); // and never answers
        decode.answer(req -> prefillRunning.thenRun(
                () -> FakeEngine.json(503, "{\"error\":\"decode full\"}").handle(req)));
        NotifyBuilder done = new NotifyBuilder(context).fromRoute("chat-completions").whenDone(1).create();

        HttpResponse<String> response = chat();

        assertThat(done.matches(10, TimeUnit.SECONDS)).isTrue();
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("{\"error\":\"decode full\"}");
        PdVerdict verdict = verdict();
        assertThat(verdict.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(verdict.earlyRejection()).isTrue();
        assertThat(verdict.prefill().cancelled()).isTrue();
        assertThat(prefill.requests()).containsExactly("POST /v1/chat/completions");
        await().atMost(Duration.ofSeconds(5)).until(() -> prefill.abandoned() == 1);
    }
}
