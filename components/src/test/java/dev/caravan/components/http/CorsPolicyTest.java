package dev.caravan.components.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.function.UnaryOperator;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/** --cors-allowed-origins as SGLang applies it: any origin when empty, else only those listed. */
class CorsPolicyTest {

    private final Vertx vertx = Vertx.vertx();
    private GatewayHttpServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.stop();
        }
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private void listen(List<String> origins) {
        server = new GatewayHttpServer(vertx, "127.0.0.1", 0, 1024, 1, (e, p, s, n) -> { }, UnaryOperator.identity(),
                CorsPolicy.handler(origins));
        server.router().post("/v1/chat/completions").handler(ctx -> ctx.response().putHeader("X-Request-Id", "r1")
                .end("ok"));
        server.start();
    }

    private HttpResponse<String> send(String method, String origin, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/v1/chat/completions")).method(method, HttpRequest.BodyPublishers.ofString(""));
        if (origin != null) {
            b.header("Origin", origin);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void withoutOriginsAnyOriginMayCallWithAnyHeader() throws Exception {
        listen(List.of());
        HttpResponse<String> preflight = send("OPTIONS", "https://ui.example.com",
                "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "x-custom, content-type");
        assertThat(preflight.statusCode()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("access-control-allow-origin")).hasValue("*");
        assertThat(preflight.headers().firstValue("access-control-allow-headers")).hasValue("x-custom, content-type");
        assertThat(preflight.headers().firstValue("access-control-max-age")).hasValue("3600");
        HttpResponse<String> call = send("POST", "https://ui.example.com");
        assertThat(call.statusCode()).isEqualTo(200);
        assertThat(call.headers().firstValue("access-control-allow-origin")).hasValue("*");
    }

    @Test
    void withOriginsOnlyThoseMayCallAndOthersAreRefused() throws Exception {
        listen(List.of("https://app.example.com"));
        HttpResponse<String> allowed = send("POST", "https://app.example.com");
        assertThat(allowed.statusCode()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("access-control-allow-origin")).hasValue("https://app.example.com");
        assertThat(allowed.headers().firstValue("access-control-expose-headers")).hasValue("X-Request-Id");
        assertThat(send("POST", "https://evil.example.com").statusCode()).isEqualTo(403);
        HttpResponse<String> noOrigin = send("POST", null);
        assertThat(noOrigin.statusCode()).as("non-browser clients are not affected").isEqualTo(200);
        assertThat(noOrigin.headers().firstValue("access-control-allow-origin")).isEmpty();
    }
}
