package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.TestPki;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;

/**
 * TLS with certificates generated in the test: the gateway serves HTTPS ({@code --tls-cert-path}/{@code --tls-key-path})
 * and reaches an {@code https://} worker that demands a client certificate (mTLS: {@code --client-cert-path},
 * {@code --client-key-path}, {@code --ca-cert-paths}) — for inference, control calls and health probes alike; without
 * the client certificate the worker refuses it.
 */
class TlsIT {

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static Vertx vertx;
    private static HttpServer worker;
    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create(dir);
        TestPki.Issued workerCert = pki.issue("worker");
        vertx = Vertx.vertx();
        worker = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setClientAuth(ClientAuth.REQUIRED)
                .setKeyCertOptions(new PemKeyCertOptions().setCertPath(workerCert.cert().toString())
                        .setKeyPath(workerCert.key().toString()))
                .setTrustOptions(new PemTrustOptions().addCertPath(pki.caPem().toString())))
                .requestHandler(req -> {
                    String who = peer(req);
                    SEEN.add(req.method() + " " + req.path() + " " + (who.contains("CN=gateway-client") ? "mtls" : who));
                    req.response().putHeader("content-type", "application/json");
                    switch (req.path()) {
                        case "/v1/chat/completions" -> req.response().end("{\"id\":\"chatcmpl-1\",\"choices\":[]}");
                        case "/get_server_info" -> req.response().end("{\"dp_size\":1}");
                        default -> req.response().end("{}");
                    }
                })
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get();
        TestPki.Issued server = pki.issue("gateway");
        TestPki.Issued client = pki.issue("gateway-client");
        gateway = GatewayHarness.start(tls(GatewayHarness.config(List.of(workerUrl())), server)
                .with(CoreFlags.CLIENT_CERT_PATH, client.cert().toString())
                .with(CoreFlags.CLIENT_KEY_PATH, client.key().toString()));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private static String peer(io.vertx.core.http.HttpServerRequest req) {
        try {
            return req.connection().peerCertificates().get(0).toString();
        } catch (javax.net.ssl.SSLPeerUnverifiedException | IndexOutOfBoundsException e) {
            return "no client certificate";
        }
    }

    private static String workerUrl() {
        return "https://127.0.0.1:" + worker.actualPort();
    }

    private static GatewayConfig tls(GatewayConfig config, TestPki.Issued server) {
        return config.with(CoreFlags.TLS_CERT_PATH, server.cert().toString())
                .with(CoreFlags.TLS_KEY_PATH, server.key().toString())
                .with(CoreFlags.CA_CERT_PATHS, pki.caPem().toString());
    }

    private static HttpResponse<String> chat(int port) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(pki.clientContext(null)).build();
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(GatewayClient.json(Map.of("messages",
                        List.of(Map.of("role", "user", "content", "hi")))))).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesHttpsAndReachesAnMtlsWorkerWithItsClientCertificate() throws Exception {
        HttpResponse<String> r = chat(gateway.port());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"id\":\"chatcmpl-1\",\"choices\":[]}");
        assertThat(SEEN).contains("POST /v1/chat/completions mtls");
    }

    @Test
    void controlCallsAndHealthProbesUseTheClientCertificateToo() throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(pki.clientContext(null)).build();
        HttpResponse<String> flush = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:"
                + gateway.port() + "/flush_cache")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(flush.statusCode()).as(flush.body()).isEqualTo(200);
        assertThat(SEEN).contains("POST /flush_cache mtls");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(SEEN).contains("GET /health mtls",
                "GET /get_server_info mtls"));
    }

    @Test
    void withoutAClientCertificateTheWorkerRefusesTheGateway() throws Exception {
        try (GatewayHarness plain = GatewayHarness.start(tls(GatewayHarness.config(List.of(workerUrl())),
                pki.issue("gateway-2")).with(HealthFeature.DISABLE_HEALTH_CHECK, "true")
                .with(ReliabilityFeature.RETRY_MAX_RETRIES, "1"))) {
            HttpResponse<String> r = chat(plain.port());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        }
    }
}
