package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.dns.AddressResolverOptions;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.gateway.GatewayBeans;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.MetricsText;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.ArgsParser;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.forward.ForwardStreamProcessor;

/**
 * Workers named by hosts {@link java.net.URI} cannot parse ({@code worker_a}: Docker Compose service names, SGLang's own
 * test URLs) register through the command-line flags and the admin API, and every kind of call reaches them: requests,
 * health probes, load polls and the {@code /flush_cache} fan-out. The gateway is embedded on a Vert.x
 * instance whose resolver maps the names to 127.0.0.1 through its own hosts entries
 * ({@link AddressResolverOptions#setHostsValue}), the seam an embedding application has anyway, so no
 * {@code /etc/hosts} is touched.
 */
class WorkerHostNamesIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.defaultMaxTokens(2));

    private static int port(String url) {
        return URI.create(url).getPort();
    }

    @Test
    void workersNamedWithUnderscoresRegisterAndEveryCallReachesThem() throws Exception {
        String a = "http://worker_a:" + port(SIMS.urls().get(0));
        String b = "http://worker_b:" + port(SIMS.urls().get(1));
        Vertx vertx = Vertx.vertx(new VertxOptions().setAddressResolverOptions(new AddressResolverOptions()
                .setHostsValue(Buffer.buffer("127.0.0.1 worker_a worker_b\n"))));
        CamelContext context = new DefaultCamelContext();
        GatewayConfig config = GatewayConfig.of(ArgsParser.parse("--host", "127.0.0.1", "--port", "0", "--prometheus-port", "-1",
                "--worker-urls", a, "--policy", "round_robin", "--load-check-interval", "1",
                "--health-check-interval-secs", "1", "--decision-headers", "true").properties());
        try {
            // the gateway's own Vert.x resolves worker_a / worker_b through its hosts entries (no /etc/hosts edit)
            GatewayBeans beans = new GatewayBeans(config, vertx, null);
            CaravanGateway gateway = CaravanGateway.attach(context, beans, CaravanGateway.BUILT_IN_ROUTES);
            beans.registerStaticWorkers();
            context.start();
            GatewayClient client = new GatewayClient("http://127.0.0.1:" + gateway.port());

            HttpResponse<String> added = client.postJson("/workers", GatewayClient.json(Map.of("url", b + "/")));
            assertThat(added.statusCode()).as(added.body()).isEqualTo(202);
            assertThat(gateway.workers().all()).extracting(Worker::url).containsExactlyInAnyOrder(a, b);

            Set<String> served = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = client.postJson("/v1/completions",
                        "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hello\",\"max_tokens\":1}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                served.add(r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow());
            }
            assertThat(served).containsExactlyInAnyOrder(a, b);

            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                assertThat(gateway.workers().all()).allSatisfy(w -> assertThat(w.engineLoad()).isNotNull());
                String metrics = client.get("/metrics").body();
                for (String url : new String[] {a, b}) {
                    assertThat(MetricsText.sample(metrics, "caravan_health_checks_total", "worker=\"" + url + "\"",
                            "result=\"success\"")).isPositive();
                }
            });
            assertThat(gateway.workers().all()).allSatisfy(w -> assertThat(w.isHealthy()).isTrue());

            JsonNode flushed = GatewayClient.parse(client.post("/flush_cache", null, "").body());
            assertThat(flushed.path("status").asText()).isEqualTo("success");
            assertThat(flushed.path("workers_flushed").asInt()).isEqualTo(2);
        } finally {
            context.stop();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
