package dev.caravan.processors.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Servers created through {@link GatewayServerVertx} answer requests that fail HTTP decoding with the JSON error shape
 * and close the connection, count them, and serve well-formed requests as before.
 */
class GatewayServerVertxTest {

    private final List<String> observed = new CopyOnWriteArrayList<>();
    private final RequestObserver observer = (exchange, endpoint, status, nanos) -> observed.add(endpoint + " " + status);
    private Vertx real;
    private HttpServer server;

    @BeforeEach
    void listen() {
        real = Vertx.vertx();
        server = GatewayServerVertx.wrap(real, observer).createHttpServer()
                .requestHandler(req -> req.response().end("ok"));
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().join();
    }

    @AfterEach
    void close() {
        real.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void oversizedHeadersAre431WithTheJsonErrorBodyAndTheConnectionCloses() throws IOException {
        String response = exchange("POST /v1/completions HTTP/1.1\r\nHost: x\r\nX-Huge: " + "a".repeat(20_000)
                + "\r\nContent-Length: 2\r\n\r\n{}");

        assertThat(response).startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n")
                .containsIgnoringCase("\r\nconnection: close\r\n")
                .containsIgnoringCase("\r\ncontent-type: application/json\r\n")
                .containsIgnoringCase("\r\nx-caravan-error-code: headers_too_large\r\n")
                .endsWith("\r\n\r\n{\"error\":{\"type\":\"Request Header Fields Too Large\",\"code\":\"headers_too_large\","
                        + "\"message\":\"request headers exceed the gateway's limit of 8192 bytes\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> observed.equals(List.of("unmatched 431")));
    }

    @Test
    void anOverLongRequestLineIs414WithTheJsonErrorBody() throws IOException {
        String response = exchange("GET /" + "u".repeat(5_000) + " HTTP/1.1\r\nHost: x\r\n\r\n");

        assertThat(response).matches("(?s)HTTP/1\\.[01] 414 Request-URI Too Long\r\n.*")
                .endsWith("{\"error\":{\"type\":\"Request-URI Too Long\",\"code\":\"uri_too_long\","
                        + "\"message\":\"request line exceeds the gateway's limit of 4096 bytes\"}}")
                .doesNotContain("uuuu");
        await().atMost(Duration.ofSeconds(5)).until(() -> observed.equals(List.of("unmatched 414")));
    }

    @Test
    void malformedHttpIs400WithTheJsonErrorBody() throws IOException {
        String response = exchange("GET / HTTP/x.y\r\nHost: x\r\n\r\n");

        assertThat(response).matches("(?s)HTTP/1\\.[01] 400 Bad Request\r\n.*")
                .endsWith("{\"error\":{\"type\":\"Bad Request\",\"code\":\"malformed_http\","
                        + "\"message\":\"the request is not valid HTTP/1.1\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> observed.equals(List.of("unmatched 400")));
    }

    @Test
    void wellFormedRequestsReachTheRequestHandler() throws IOException {
        String response = exchange("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nok");
        assertThat(observed).isEmpty();
    }

    @Test
    void wrapsOnceAndLeavesTheRealInstanceAlone() {
        Vertx wrapped = GatewayServerVertx.wrap(real, observer);

        assertThat(GatewayServerVertx.wrap(wrapped, observer)).isSameAs(wrapped);
        assertThat(wrapped).isNotSameAs(real);
        assertThat(wrapped.getOrCreateContext().owner()).isSameAs(real);
    }

    /** Sends {@code request} and reads the response until the server closes the connection. */
    private String exchange(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) >= 0; ) {
                read.write(buf, 0, n);
            }
            return read.toString(StandardCharsets.US_ASCII);
        }
    }
}
