package dev.caravan.components.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The metrics listener serves the scrape on /metrics only, and fails fast when it cannot bind. */
class MetricsHttpServerTest {

    private final Vertx vertx = Vertx.vertx();
    private final AtomicInteger scrapes = new AtomicInteger();

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheScrapeOnMetricsAndNothingElse() throws Exception {
        MetricsHttpServer server = new MetricsHttpServer(vertx, "127.0.0.1", 0,
                () -> "caravan_up " + scrapes.incrementAndGet() + "\n");
        server.start();
        try {
            HttpResponse<String> r = get(server.port(), "/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("caravan_up 1\n");
            assertThat(r.headers().firstValue("content-type")).hasValue(MetricsHttpServer.CONTENT_TYPE);
            assertThat(get(server.port(), "/metrics").body()).isEqualTo("caravan_up 2\n");
            assertThat(get(server.port(), "/v1/chat/completions").statusCode()).isEqualTo(404);
        } finally {
            server.stop();
        }
    }

    @Test
    void startThrowsNamingTheMetricsAddressWhenThePortIsTaken() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            MetricsHttpServer clash = new MetricsHttpServer(vertx, "127.0.0.1", taken.getLocalPort(), () -> "");
            assertThatThrownBy(clash::start).isInstanceOf(ListenException.class)
                    .hasMessage("Caravan gateway cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + " (metrics): Address already in use");
        }
    }
}
