package dev.caravan.processors.request;

import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.STREAM;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_PATH;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class ParseRequestProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final ParseRequestProcessor parse = new ParseRequestProcessor(List.of("x-request-id", "x-correlation-id"),
            () -> new Random(7));

    private static Exchange exchange(String kind, String contentType, String body) {
        Exchange e = CAMEL.exchange();
        REQUEST_KIND.set(e, kind);
        if (contentType != null) {
            e.getIn().setHeader("Content-Type", contentType);
        }
        e.getIn().setBody(body == null ? null : Buffer.buffer(body));
        return e;
    }

    @Test
    void parsesTheBodyAndRecordsModelStreamAndUpstreamPath() throws Exception {
        Exchange e = exchange("chat", "application/json; charset=utf-8",
                "{\"model\":\"llama\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        parse.process(e);

        assertThat(MODEL.get(e)).isEqualTo("llama");
        assertThat(STREAM.get(e)).isEqualTo(true);
        assertThat(REQUEST_JSON.get(e)).containsKey("messages");
        assertThat(UPSTREAM_PATH.get(e)).isEqualTo("/v1/chat/completions");
        assertThat(REQUEST_BODY.get(e).toString())
                .startsWith("{\"model\":\"llama\"");
    }

    @Test
    void generatesAnIdWithTheKindsPrefix() throws Exception {
        Exchange e = exchange("completions", "application/json", "{\"prompt\":\"x\"}");
        parse.process(e);
        assertThat(REQUEST_ID.get(e)).matches("cmpl-[a-z0-9]{24}");
    }

    @Test
    void generatedIdsUseEveryCharacterAtEveryPositionAndDifferEachTime() throws Exception {
        Random seeded = new Random(18);
        ParseRequestProcessor ids = new ParseRequestProcessor(List.of(), () -> seeded);
        List<Set<Character>> seen = new ArrayList<>();
        Set<String> distinct = new HashSet<>();
        for (int i = 0; i < 24; i++) {
            seen.add(new HashSet<>());
        }
        for (int n = 0; n < 2_000; n++) {
            Exchange e = exchange("completions", "application/json", "{\"prompt\":\"x\"}");
            ids.process(e);
            String random = REQUEST_ID.get(e).substring("cmpl-".length());
            distinct.add(random);
            for (int i = 0; i < 24; i++) {
                seen.get(i).add(random.charAt(i));
            }
        }

        assertThat(distinct).hasSize(2_000);
        assertThat(seen).allSatisfy(chars -> assertThat(chars).hasSize(36)); // a-z and 0-9 at each position
    }

    @Test
    void takesTheRequestIdFromTheFirstConfiguredHeaderPresent() throws Exception {
        Exchange e = exchange("generate", "application/json", "{\"text\":\"x\"}");
        e.getIn().setHeader("X-Correlation-Id", "corr-7");
        parse.process(e);
        assertThat(REQUEST_ID.get(e)).isEqualTo("corr-7");
    }

    @Test
    void keepsAnUpstreamPathTheRouteSet() throws Exception {
        Exchange e = exchange("chat", "application/json", "{\"messages\":[]}");
        UPSTREAM_PATH.set(e, "/custom");
        parse.process(e);
        assertThat(UPSTREAM_PATH.get(e)).isEqualTo("/custom");
    }

    @Test
    void rejectsFormEncodedBodiesWith415() {
        assertError(exchange("chat", "application/x-www-form-urlencoded", "{\"messages\":[]}"),
                GatewayError.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json, was 'application/x-www-form-urlencoded'");
    }

    @Test
    void rejectsACompressedBodyWith415() {
        Exchange e = exchange("chat", "application/json", "{\"messages\":[]}");
        e.getIn().setHeader("Content-Encoding", "gzip");
        assertError(e, GatewayError.UNSUPPORTED_MEDIA_TYPE,
                "Content-Encoding 'gzip' is not supported; send the request body uncompressed");
    }

    @Test
    void acceptsTheIdentityContentEncoding() throws Exception {
        Exchange e = exchange("chat", "application/json", "{\"messages\":[]}");
        e.getIn().setHeader("Content-Encoding", "identity");
        parse.process(e);
        assertThat(REQUEST_JSON.get(e)).containsKey("messages");
    }

    @Test
    void rejectsAMissingContentTypeWith415() {
        assertError(exchange("chat", null, "{}"), GatewayError.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json, was missing");
    }

    @Test
    void rejectsMalformedJsonWith400() {
        assertThatThrownBy(() -> parse.process(exchange("chat", "application/json", "{\"messages\":")))
                .isInstanceOf(GatewayException.class).hasMessageStartingWith("request body is not valid JSON");
    }

    @Test
    void rejectsAnEmptyBody() {
        assertError(exchange("chat", "application/json", ""), GatewayError.INVALID_JSON,
                "request body is empty; expected a JSON object");
    }

    @Test
    void rejectsAJsonArrayBody() {
        assertError(exchange("chat", "application/json", " [1,2]"), GatewayError.INVALID_JSON,
                "request body must be a JSON object");
    }

    @Test
    void rejectsANonStringModel() {
        assertError(exchange("chat", "application/json", "{\"model\":7}"), GatewayError.INVALID_REQUEST,
                "model must be a string");
    }

    @Test
    void rejectsANonBooleanStream() {
        assertError(exchange("chat", "application/json", "{\"stream\":\"yes\"}"), GatewayError.INVALID_REQUEST,
                "stream must be a boolean");
    }

    @Test
    void anUnknownKindIsARouteConfigurationError() {
        assertThatThrownBy(() -> parse.process(exchange("speech", "application/json", "{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("caravanRequestKind must be one of chat, completions, generate, embeddings, rerank, classify, "
                        + "tokenize, detokenize, responses, was 'speech'");
    }

    @Test
    void nestingDeeperThanTheLimitIs400() {
        ParseRequestProcessor shallow = new ParseRequestProcessor(List.of(), () -> new Random(7), 8);
        String ok = "{\"a\":" + "[".repeat(6) + "1" + "]".repeat(6) + "}";
        String deep = "{\"a\":" + "[".repeat(20) + "1" + "]".repeat(20) + "}";
        assertThatCode(() -> shallow.process(exchange("completions", "application/json", ok)))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> shallow.process(exchange("completions", "application/json", deep)))
                .isInstanceOf(GatewayException.class).hasMessageContaining("nesting depth")
                .satisfies(t -> assertThat(((GatewayException) t).error()).isEqualTo(GatewayError.INVALID_JSON));
    }

    @Test
    void anythingAfterTheObjectIs400() {
        assertThatThrownBy(() -> parse.process(exchange("completions", "application/json", "{\"prompt\":\"x\"}}")))
                .isInstanceOf(GatewayException.class).hasMessageContaining("not valid JSON")
                .satisfies(t -> assertThat(((GatewayException) t).error()).isEqualTo(GatewayError.INVALID_JSON));
        assertThatThrownBy(() -> parse.process(exchange("completions", "application/json", "{\"prompt\":\"x\"} {}")))
                .isInstanceOf(GatewayException.class);
    }

    @Test
    void malformedUtf8Is400() {
        Exchange e = exchange("completions", "application/json", null);
        e.getIn().setBody(Buffer.buffer(new byte[] {'{', '"', 'p', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'}));
        assertThatThrownBy(() -> parse.process(e)).isInstanceOf(GatewayException.class)
                .hasMessageContaining("UTF-8")
                .satisfies(t -> assertThat(((GatewayException) t).error()).isEqualTo(GatewayError.INVALID_JSON));
    }

    private void assertError(Exchange e, GatewayError error, String message) {
        assertThatThrownBy(() -> parse.process(e)).isInstanceOf(GatewayException.class).hasMessage(message)
                .satisfies(t -> assertThat(((GatewayException) t).error()).isEqualTo(error));
    }
}
