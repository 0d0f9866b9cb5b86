package dev.caravan.processors.request;

import static dev.caravan.processors.CaravanExchangeProperties.PROMPT_TOKENS;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.policies.text.PromptTokens;
import dev.caravan.processors.FuzzOracle;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.tokens.LocalPrompts;
import dev.caravan.processors.tokens.TokenizePromptProcessor;
import dev.caravan.processors.tokens.TokensConfig;
import dev.caravan.processors.tokens.TokensMetrics;
import dev.caravan.tokens.EngineDialect;

/**
 * Fuzz target: a client's request body through the first steps of the inference route, {@code parseRequest},
 * {@code extractRoutingText} and {@code tokenizePrompt} (Qwen3's real tokenizer and chat template for every model).
 *
 * <p>Input: the first byte picks the API (chat, completions, generate, embeddings, responses, by its value modulo 5),
 * the rest is the body as sent. Oracle ({@link FuzzOracle}): each step passes or raises a 4xx
 * {@code GatewayException} (which the errors route answers as an OpenAI-style error); the thread allocates within the
 * per-input bound; the routing text and the prompt tokens are at most {@value #GROWTH} times the body's length (plus
 * {@value #SLACK}, a template's own text); and afterwards a known chat request still gets its exact routing text and
 * tokens from the same step instances. Regression inputs: {@code RequestBodyFuzzTestInputs/requestBody/}.
 */
class RequestBodyFuzzTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    static final List<String> KINDS = List.of("chat", "completions", "generate", "embeddings", "responses");
    static final int GROWTH = 64;
    static final int SLACK = 4096;
    static final String KNOWN_CHAT = "{\"model\":\"qwen\",\"messages\":[{\"role\":\"user\","
            + "\"content\":\"Tell me about caravans\"}]}";
    /** Qwen3's ids for {@link #KNOWN_CHAT} (tokens' vectors/prompt-tokens.json, single_user). */
    static final int[] KNOWN_CHAT_IDS = {151644, 872, 198, 40451, 752, 911, 1803, 402, 596, 151645, 198, 151644,
        77091, 198};

    static LocalPrompts local;
    static ParseRequestProcessor parse;
    static ExtractRoutingTextProcessor routingText;
    static TokenizePromptProcessor tokenize;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
        TokensConfig config = new TokensConfig(TokensConfig.Source.AUTO, EngineDialect.VLLM, Duration.ofSeconds(1),
                null, TokensConfig.models(List.of(Path.of("../models/qwen3").toString()), List.of(), List.of()),
                Map.of());
        local = new LocalPrompts(config, Clock.systemUTC());
        parse = new ParseRequestProcessor(List.of("x-request-id"), () -> new Random(1));
        routingText = new ExtractRoutingTextProcessor();
        tokenize = new TokenizePromptProcessor(config, local, null, new TokensMetrics(new SimpleMeterRegistry()),
                System::nanoTime);
        assertStillServing(); // warm-up: the first render compiles the template, outside any input's allocation
    }

    @AfterAll
    static void stop() {
        local.close();
    }

    @FuzzTest(maxDuration = "60s")
    void requestBody(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        String kind = KINDS.get(Math.floorMod(input[0], KINDS.size()));
        byte[] body = Arrays.copyOfRange(input, 1, input.length);
        FuzzOracle.allocationOf(body.length, () -> {
            Exchange e = exchange(kind, body);
            if (FuzzOracle.clientError(() -> steps(e)) == null) {
                String text = ROUTING_TEXT.get(e);
                assertThat(text.length()).as("routing text length").isLessThanOrEqualTo(GROWTH * body.length + SLACK);
                PromptTokens tokens = PROMPT_TOKENS.get(e);
                if (tokens != null) {
                    assertThat(tokens.ids().length).as("prompt tokens")
                            .isLessThanOrEqualTo(GROWTH * body.length + SLACK);
                }
            }
        });
        assertStillServing();
    }

    /** The known chat gets its exact routing text and tokens. */
    private static void assertStillServing() throws Exception {
        Exchange known = exchange("chat", KNOWN_CHAT.getBytes(StandardCharsets.UTF_8));
        steps(known);
        assertThat(ROUTING_TEXT.get(known))
                .isEqualTo(ChatTemplate.render(List.of(Map.of("role", "user", "content", "Tell me about caravans")),
                        null));
        assertThat(PROMPT_TOKENS.get(known).ids()).containsExactly(KNOWN_CHAT_IDS);
    }

    private static Exchange exchange(String kind, byte[] body) {
        Exchange e = CAMEL.exchange("Content-Type", "application/json");
        REQUEST_KIND.set(e, kind);
        e.getIn().setBody(Buffer.buffer(body));
        return e;
    }

    /** The three steps as the route runs them: tokenizePrompt reports its failure on the exchange. */
    private static void steps(Exchange e) throws Exception {
        parse.process(e);
        routingText.process(e);
        tokenize.process(e, doneSync -> { });
        if (e.getException() != null) {
            throw e.getException();
        }
    }
}
