package dev.caravan.it.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.camel.main.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.app.GatewayMain;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;

/**
 * The application as {@code ./caravan run --routes DIR} starts it (camel-main with the gateway's own HTTP server):
 * routes copied to a folder reload live when edited or added (ingress's templated endpoint routes keep serving across
 * a reload of their file; also route files that still use {@code platform-http:}, which the application serves on the
 * gateway's server), Camel's own route metrics join the gateway's at /metrics, and the server answers undecodable
 * requests in the gateway's JSON error shape.
 */
class GatewayMainIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.defaultMaxTokens(2));

    private static final List<String> ROUTE_FILES = List.of("errors.camel.yaml", "ingress.camel.yaml",
            "admin.camel.yaml", "control.camel.yaml");

    @TempDir
    static Path routes;

    private static Main main;
    private static GatewayClient client;

    @BeforeAll
    static void start() throws Exception {
        for (String name : ROUTE_FILES) {
            try (InputStream in = GatewayMainIT.class.getClassLoader().getResourceAsStream("routes/" + name)) {
                Files.write(routes.resolve(name), in.readAllBytes());
            }
        }
        main = GatewayMain.create(GatewayHarness.config(SIMS.urls()).with(CoreFlags.ROUTES, routes.toString()),
                Map.of());
        main.start();
        int port = CaravanGateway.port(main.getCamelContext());
        client = new GatewayClient("http://127.0.0.1:" + port);
    }

    @AfterAll
    static void stop() {
        main.stop();
    }

    private static void edit(String file, String from, String to) throws IOException {
        Path p = routes.resolve(file);
        String yaml = Files.readString(p, StandardCharsets.UTF_8);
        assertThat(yaml).contains(from);
        Files.writeString(p, yaml.replace(from, to), StandardCharsets.UTF_8);
    }

    @Test
    void editingARouteFileChangesBehaviourLive() throws IOException {
        assertThat(client.get("/health").body()).isEqualTo("OK");
        edit("admin.camel.yaml", "constant: OK", "constant: RELOADED");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> client.get("/health").body().equals("RELOADED"));
        // the request path keeps working across the reload
        assertThat(client.postJson("/v1/completions",
                "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hi\"}").statusCode()).isEqualTo(200);
    }

    @Test
    void editingIngressKeepsItsTemplatedEndpointsServing() throws IOException {
        String completion = "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hi\"}";
        edit("ingress.camel.yaml", "- route:\n    id: stored-response\n", """
                - route:
                    id: ingress-edited
                    from:
                      uri: caravan-http:/ingress-edited
                      steps:
                        - setBody:
                            constant: edited
                - route:
                    id: stored-response
                """);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> client.get("/ingress-edited").statusCode() == 200);
        assertThat(client.postJson("/v1/completions", completion).statusCode()).isEqualTo(200);
        assertThat(client.postJson("/v1/chat/completions", "{\"model\":\"" + SIMS.model()
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").statusCode()).isEqualTo(200);
    }

    @Test
    void addingARouteFileAddsItsRoutesLiveEvenWithAPlatformHttpUri() throws IOException {
        Files.writeString(routes.resolve("extra.camel.yaml"), """
                - route:
                    id: hello
                    routeConfigurationId: caravan-errors
                    from:
                      uri: platform-http:/hello
                      steps:
                        - setBody:
                            constant: hello from a new file
                """, StandardCharsets.UTF_8);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> client.get("/hello").statusCode() == 200);
        assertThat(client.get("/hello").body()).isEqualTo("hello from a new file");
    }

    @Test
    void theServerAnswersOversizedHeadersWithTheJsonErrorShape() {
        HttpResponse<String> r = client.get("/v1/models", "X-Huge", "a".repeat(20_000));
        assertThat(r.statusCode()).isEqualTo(431);
        assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue("headers_too_large");
        assertThat(GatewayClient.parse(r.body()).path("error").path("message").asText())
                .isEqualTo("request headers exceed the gateway's limit of 8192 bytes");
        assertThat(client.get("/v1/models").statusCode()).isEqualTo(200);
    }

    @Test
    void metricsIncludeCamelRouteAndJvmMeters() {
        client.postJson("/v1/completions", "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hi\"}");
        String metrics = client.get("/metrics").body();
        assertThat(metrics).contains("camel_exchanges_total{").contains("routeId=\"inference\"")
                .contains("jvm_memory_used_bytes").contains("caravan_requests_total{endpoint=\"/v1/completions\"");
    }
}
