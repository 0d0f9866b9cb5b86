package dev.caravan.components.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway's own server fails fast when it cannot bind, answers requests that fail HTTP decoding and unknown paths
 * with the JSON error shape (closing the connection after undecodable ones), counts them, and serves the routes added
 * to its router.
 */
class GatewayHttpServerTest {

    private final List<String> observed = new CopyOnWriteArrayList<>();
    private final RequestObserver observer = (exchange, endpoint, status, nanos) -> observed.add(endpoint + " " + status);
    private Vertx vertx;
    private GatewayHttpServer server;

    @BeforeEach
    void listen() {
        vertx = Vertx.vertx();
        server = new GatewayHttpServer(vertx, "127.0.0.1", 0, 1024, 1, observer);
        server.router().get("/v1/models").handler(ctx -> ctx.response().end("ok"));
        server.start();
    }

    @AfterEach
    void close() {
        server.stop();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void startThrowsNamingTheAddressAndTheCauseWhenThePortIsTaken() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            GatewayHttpServer clash = new GatewayHttpServer(vertx, "127.0.0.1", taken.getLocalPort(), 1024, 1, observer);

            assertThatThrownBy(clash::start).isInstanceOf(ListenException.class)
                    .hasMessage("Caravan gateway cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + ": Address already in use");
            assertThat(clash.listening()).isFalse();
        }
    }

    @Test
    void checkFreeFailsForATakenPortAndPassesForAFreeOneOrPortZero() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> GatewayHttpServer.checkFree("127.0.0.1", taken.getLocalPort()))
                    .isInstanceOf(ListenException.class)
                    .hasMessage("Caravan gateway cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + ": Address already in use");
        }
        GatewayHttpServer.checkFree("127.0.0.1", 0);
        int free;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            free = probe.getLocalPort();
        }
        GatewayHttpServer.checkFree("127.0.0.1", free);
        try (ServerSocket again = new ServerSocket(free, 50, InetAddress.getByName("127.0.0.1"))) {
            assertThat(again.getLocalPort()).as("the check released the port").isEqualTo(free);
        }
    }

    @Test
    void startThrowsNamingTheAddressWhenTheHostCannotBeBound() {
        GatewayHttpServer bad = new GatewayHttpServer(vertx, "no-such-host.invalid", 0, 1024, 1, observer);

        assertThatThrownBy(bad::start).isInstanceOf(ListenException.class)
                .hasMessageStartingWith("Caravan gateway cannot listen on no-such-host.invalid:0: ");
        assertThat(bad.listening()).isFalse();
    }

    @Test
    void listensOnSeveralEventLoopsAndStoppingReleasesThePort() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            port = probe.getLocalPort();
        }
        GatewayHttpServer loops = new GatewayHttpServer(vertx, "127.0.0.1", port, 1024, 3, observer);
        loops.router().get("/ping").handler(ctx -> ctx.response().end("pong"));
        loops.start();
        try {
            for (int i = 0; i < 6; i++) {
                assertThat(exchange(port, "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                        .startsWith("HTTP/1.1 200 OK\r\n").endsWith("pong");
            }
        } finally {
            loops.stop();
        }
        assertThat(loops.listening()).isFalse();
        // the extra loops' sockets close on their own event loops: the port is free once they all have
        await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(IOException.class).untilAsserted(() -> {
            try (ServerSocket again = new ServerSocket()) {
                again.setReuseAddress(true);
                again.bind(new java.net.InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
                assertThat(again.getLocalPort()).isEqualTo(port);
            }
        });
    }

    @Test
    void portZeroOnSeveralEventLoopsBindsOneRandomPortPerServerThatItsLoopsShare() throws IOException {
        GatewayHttpServer first = new GatewayHttpServer(vertx, "127.0.0.1", 0, 1024, 3, observer);
        GatewayHttpServer second = new GatewayHttpServer(vertx, "127.0.0.1", 0, 1024, 3, observer);
        first.router().get("/who").handler(ctx -> ctx.response().end("first " + Thread.currentThread().getName()));
        second.router().get("/who").handler(ctx -> ctx.response().end("second"));
        first.start();
        second.start();
        try {
            assertThat(first.port()).isPositive().isNotEqualTo(second.port()).isNotEqualTo(server.port());
            java.util.Set<String> loops = new java.util.HashSet<>();
            for (int i = 0; i < 6; i++) {
                String response = exchange(first.port(), "GET /who HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\n\r\nfirst ");
                loops.add(response.substring(response.indexOf("first ")));
            }
            assertThat(loops).as("connections are dealt to more than one event loop").hasSizeGreaterThan(1);
            assertThat(exchange(second.port(), "GET /who HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                    .endsWith("\r\n\r\nsecond");
        } finally {
            first.stop();
            second.stop();
        }
    }

    @Test
    void unknownPathsAre404WithTheJsonErrorBody() throws IOException {
        String response = exchange("GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 404 Not Found\r\n")
                .containsIgnoringCase("\r\ncontent-type: application/json\r\n")
                .endsWith("{\"error\":{\"type\":\"Not Found\",\"code\":\"not_found\","
                        + "\"message\":\"no route for GET /nope\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> observed.equals(List.of("unmatched 404")));
    }

    @Test
    void aPathWithAMalformedPercentEscapeIs400WithTheJsonErrorBody() throws IOException {
        String response = exchange("GET /v1/models/a%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 400 Bad Request\r\n")
                .containsIgnoringCase("\r\ncontent-type: application/json\r\n")
                .endsWith("{\"error\":{\"type\":\"Bad Request\",\"code\":\"invalid_request\","
                        + "\"message\":\"malformed request path /v1/models/a%zz\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> observed.equals(List.of("unmatched 400")));
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
    void wellFormedRequestsReachTheRoutesOnItsRouter() throws IOException {
        String response = exchange("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nok");
        assertThat(observed).isEmpty();
    }

    private String exchange(String request) throws IOException {
        return exchange(server.port(), request);
    }

    /** Sends {@code request} and reads the response until the server closes the connection. */
    private static String exchange(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
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
