package dev.caravan.processors.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

class UpstreamHeadersTest {

    private static MultiMap client() {
        return MultiMap.caseInsensitiveMultiMap()
                .add("Host", "gw:30000").add("Connection", "keep-alive, X-Hop").add("Keep-Alive", "timeout=5")
                .add("Transfer-Encoding", "chunked").add("TE", "trailers").add("Upgrade", "h2c")
                .add("Content-Length", "42").add("Accept-Encoding", "gzip").add("X-Hop", "1")
                .add("Authorization", "Bearer client").add("Content-Type", "application/json")
                .add("X-Correlation-Id", "corr-1").add("X-Request-Id", "old").add("traceparent", "00-abc");
    }

    @Test
    void dropsHopByHopHostLengthAndEncodingHeaders() {
        MultiMap out = forClient(null, "rid-1");
        assertThat(out.names()).containsExactlyInAnyOrder("Authorization", "Content-Type", "X-Correlation-Id",
                "traceparent", "X-Request-Id");
    }

    @Test
    void keepsTheClientsAuthorizationWithoutAKey() {
        assertThat(forClient(null, "rid").get("authorization")).isEqualTo("Bearer client");
    }

    @Test
    void aWorkerKeyReplacesTheClientsAuthorization() {
        MultiMap out = forClient("sk-worker", "rid");
        assertThat(out.getAll("authorization")).containsExactly("Bearer sk-worker");
    }

    @Test
    void setsTheRequestId() {
        assertThat(forClient(null, "rid-9").getAll("x-request-id")).containsExactly("rid-9");
    }

    @Test
    void messageHeadersSetByRouteStepsAreForwardedWithoutCamelHeadersOrParameters() {
        java.util.Map<String, Object> message = new org.apache.camel.util.CaseInsensitiveMap();
        message.put("Content-Type", "application/json");
        message.put("X-Tenant", "acme");                    // a YAML setHeader step
        message.put("CamelHttpUri", "/v1/chat/completions");
        message.put("CamelVertxPlatformHttpLocalAddress", new Object());
        message.put("debug", "1");                          // a query parameter platform-http copied in
        message.put("X-Multi", java.util.List.of("a", "b"));
        MultiMap out = UpstreamHeaders.forRequest(message, java.util.Set.of("debug"), null, "rid");
        assertThat(out.names()).containsExactlyInAnyOrder("Content-Type", "X-Tenant", "X-Multi", "X-Request-Id");
        assertThat(out.getAll("x-multi")).containsExactly("a", "b");
    }

    @Test
    void messageHeadersDropHopByHopAndGatewayHeadersInAnyCase() {
        java.util.Map<String, Object> message = clientMessage();
        message.put("PROXY-AUTHORIZATION", "Basic x");
        message.put("expect", "100-continue");
        message.put("trailers", "x");
        message.put("x-te", "kept: not the te header");

        MultiMap out = UpstreamHeaders.forRequest(message, java.util.Set.of(), "sk-worker", "rid-2");

        assertThat(out.names()).containsExactlyInAnyOrder("Authorization", "Content-Type", "X-Correlation-Id",
                "traceparent", "X-Request-Id", "x-te");
        assertThat(out.getAll("authorization")).containsExactly("Bearer sk-worker");
        assertThat(out.getAll("x-request-id")).containsExactly("rid-2");
    }

    @Test
    void responseKeepsEndToEndHeadersAndContentLength() {
        MultiMap upstream = MultiMap.caseInsensitiveMultiMap().add("Content-Type", "text/event-stream")
                .add("Content-Length", "10").add("Connection", "close").add("Transfer-Encoding", "chunked")
                .add("X-Engine", "sim");
        MultiMap target = MultiMap.caseInsensitiveMultiMap();
        UpstreamHeaders.copyResponse(upstream, target);
        assertThat(target.names()).containsExactlyInAnyOrder("Content-Type", "Content-Length", "X-Engine");
    }

    @Test
    void responseDropsHopByHopHeadersInAnyCaseAndThoseItsConnectionHeaderNames() {
        MultiMap upstream = MultiMap.caseInsensitiveMultiMap().add("content-type", "application/json")
                .add("KEEP-ALIVE", "timeout=5").add("Connection", "X-Hop, Keep-Alive").add("x-hop", "1")
                .add("Upgrade", "h2c").add("Trailer", "x").add("X-Kept", "2");
        MultiMap target = MultiMap.caseInsensitiveMultiMap();
        UpstreamHeaders.copyResponse(upstream, target);
        assertThat(target.names()).containsExactlyInAnyOrder("content-type", "X-Kept");
    }

    @Test
    void messageHeadersNamedByTheConnectionHeaderAndCamelsInAnyCaseStayBehind() {
        java.util.Map<String, Object> message = messageOf("CONNECTION", "close, X-Hop, Authorization", "x-hop", "1",
                "Authorization", "Bearer client", "camelSomething", "x", "Cache-Control", "no-cache", "C", "short");

        MultiMap out = UpstreamHeaders.forRequest(message, java.util.Set.of(), null, "rid-3");

        assertThat(out.names()).containsExactlyInAnyOrder("Cache-Control", "C", "X-Request-Id");
    }

    /** Camel's case-insensitive header map holding the given names and values, in pairs. */
    private static java.util.Map<String, Object> messageOf(String... namesAndValues) {
        java.util.Map<String, Object> message = new org.apache.camel.util.CaseInsensitiveMap();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            message.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return message;
    }

    /** The client's headers as platform-http puts them in the Camel message. */
    private static java.util.Map<String, Object> clientMessage() {
        java.util.Map<String, Object> message = new org.apache.camel.util.CaseInsensitiveMap();
        client().forEach(e -> message.put(e.getKey(), e.getValue()));
        return message;
    }

    private static MultiMap forClient(String apiKey, String requestId) {
        return UpstreamHeaders.forRequest(clientMessage(), java.util.Set.of(), apiKey, requestId);
    }
}
