package dev.caravan.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.components.http.ErrorBody;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.limits.OutputLimitFeature;
import dev.caravan.processors.tokens.TokensFeature;

/**
 * {@code --max-output-tokens} end to end on the shipped routes: the row of {@link OutputLimitFeature} sets the limit,
 * its {@code wire} binds the step, and ingress.camel.yaml runs it before admission: a chat asking for more is answered
 * 400 by the gateway and never reaches the engine; one asking for the limit is forwarded.
 */
class OutputLimitRouteTest extends GatewayRouteTestSupport {

    private static final String ANSWER = "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[]}";

    private static FakeEngine engine;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void startEngine() throws Exception {
        engine = FakeEngine.start();
    }

    @AfterAll
    static void stopEngine() throws Exception {
        engine.close();
    }

    @Override
    protected GatewayConfig config() {
        return baseConfig()
                .with(CoreFlags.WORKER_URLS, engine.url())
                .with(TokensFeature.TOKENS_SOURCE, "off")
                .with(OutputLimitFeature.MAX_OUTPUT_TOKENS, "16");
    }

    private HttpResponse<String> chat(int maxTokens) throws Exception {
        String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":"
                + maxTokens + "}";
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port()
                        + "/v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aChatAskingForMoreThanTheLimitIs400AndNeverReachesTheEngine() throws Exception {
        engine.answer(FakeEngine.json(200, ANSWER));

        HttpResponse<String> response = chat(17);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).isEqualTo(ErrorBody.json(400, "invalid_request",
                "max_tokens must be at most 16 on this gateway, was 17"));
        assertThat(engine.requests()).isEmpty();
    }

    @Test
    void aChatAskingForTheLimitIsForwarded() throws Exception {
        engine.answer(FakeEngine.json(200, ANSWER));

        HttpResponse<String> response = chat(16);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(ANSWER);
        assertThat(engine.requests()).containsExactly("POST /v1/chat/completions");
    }

    @Test
    void theLimitIsARowOfTheFlagTable() {
        assertThat(CaravanFlags.all()).contains(OutputLimitFeature.MAX_OUTPUT_TOKENS);
        assertThat(OutputLimitFeature.MAX_OUTPUT_TOKENS.key()).isEqualTo("caravan.limits.max-output-tokens");
    }
}
