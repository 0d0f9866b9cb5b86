package dev.caravan.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.gateway.GatewayBeans;
import dev.caravan.kubernetes.DiscoveryFeature;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.ArgsParser;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * {@code --service-discovery} wires {@code discovery.camel.yaml} and its beans into both ways the gateway starts
 * (camel-main and {@link CaravanGateway#install}); without it the route is not loaded at all. The API server is
 * fabric8's CRUD mock; its client is found in the Camel registry by the {@code pod-watch:} consumer.
 */
@EnableKubernetesMockClient(crud = true)
class DiscoveryWiringTest {

    static KubernetesClient client;

    private static GatewayConfig discovering() {
        return GatewayConfig.defaults()
                .with(CoreFlags.PORT, "0").with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0")
                .with(CoreFlags.SERVICE_DISCOVERY, "true")
                .with(DiscoveryFeature.SELECTOR, "app=vllm,tier=gpu")
                .with(DiscoveryFeature.SERVICE_DISCOVERY_NAMESPACE, "llm")
                .with(DiscoveryFeature.SERVICE_DISCOVERY_PORT, "8000");
    }

    private static Pod readyPod(String name, String ip, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata().withNamespace("llm").withName(name).withLabels(labels)
                .addToAnnotations("caravan.dev/model", "qwen").endMetadata()
                .withNewStatus().withPhase("Running").withPodIP(ip)
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
                .build();
    }

    private static void create(Pod pod) {
        client.pods().inNamespace("llm").resource(pod).create();
    }

    @Test
    void camelMainRegistersReadyPodsFromTheDiscoveryRouteInAllNamespaces() throws Exception {
        create(readyPod("main-0", "10.1.0.1", Map.of("app", "vllm", "tier", "gpu")));
        Main main = GatewayMain.create(discovering().with(DiscoveryFeature.SERVICE_DISCOVERY_NAMESPACE, ""), Map.of());
        main.bind("kubernetesClient", client);
        main.start();
        try {
            CamelContext camel = main.getCamelContext();
            assertThat(camel.getRoute("discovery")).isNotNull();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
                    camel.getRegistry().lookupByNameAndType(Wiring.WORKER_REGISTRY, WorkerRegistry.class)
                            .findByUrl("http://10.1.0.1:8000")).isPresent());
        } finally {
            main.stop();
        }
    }

    @Test
    void embeddedGatewayDrainsPodsThatStopMatching() throws Exception {
        create(readyPod("embedded-0", "10.1.0.2", Map.of("app", "vllm", "tier", "gpu")));
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind("kubernetesClient", client);
        CaravanGateway gateway = CaravanGateway.install(camel, discovering());
        camel.start();
        try {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> gateway.workers().findByUrl("http://10.1.0.2:8000").isPresent());
            Worker w = gateway.workers().findByUrl("http://10.1.0.2:8000").orElseThrow();
            assertThat(w.modelId()).isEqualTo("qwen");

            Pod pod = client.pods().inNamespace("llm").withName("embedded-0").get();
            pod.getMetadata().getLabels().put("tier", "cpu");
            client.pods().inNamespace("llm").resource(pod).update();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> gateway.workers().findByUrl("http://10.1.0.2:8000").isEmpty());
            assertThat(gateway.beans().meterRegistry().scrape())
                    .contains("caravan_discovery_deregistrations_total{reason=\"selector_mismatch\"} 1.0");
        } finally {
            camel.stop();
        }
    }

    @Test
    void prefillDecodeDiscoveryIsReadyOnlyWithBothRoles() throws Exception {
        GatewayConfig pd = GatewayConfig.defaults()
                .with(CoreFlags.PORT, "0").with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0")
                .with(CoreFlags.SERVICE_DISCOVERY, "true")
                .with(DiscoveryFeature.SERVICE_DISCOVERY_NAMESPACE, "llm")
                .with(DiscoveryFeature.PREFILL_SELECTOR, "app=sglang,role=prefill")
                .with(DiscoveryFeature.DECODE_SELECTOR, "app=sglang,role=decode");
        create(new PodBuilder(readyPod("pd-prefill", "10.2.0.1", Map.of("app", "sglang", "role", "prefill")))
                .editMetadata().addToAnnotations("sglang.ai/bootstrap-port", "8998").endMetadata().build());
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind("kubernetesClient", client);
        CaravanGateway gateway = CaravanGateway.install(camel, pd);
        camel.start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI readiness = URI.create("http://127.0.0.1:" + gateway.port() + "/readiness");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> gateway.workers().findByUrl("http://10.2.0.1:80").isPresent());
            assertThat(gateway.workers().findByUrl("http://10.2.0.1:80").orElseThrow().bootstrapPort()).isEqualTo(8998);
            assertThat(http.send(HttpRequest.newBuilder(readiness).build(), BodyHandlers.ofString()).statusCode())
                    .isEqualTo(503);

            create(readyPod("pd-decode", "10.2.0.2", Map.of("app", "sglang", "role", "decode")));
            await().atMost(Duration.ofSeconds(20)).until(() -> http.send(HttpRequest.newBuilder(readiness).build(),
                    BodyHandlers.ofString()).statusCode() == 200);
            assertThat(gateway.workers().findByUrl("http://10.2.0.2:80").orElseThrow().role())
                    .isEqualTo(WorkerRole.DECODE);
        } finally {
            camel.stop();
        }
    }

    @Test
    void withoutTheFlagNeitherRouteNorBeansExist() throws Exception {
        GatewayConfig plain = GatewayConfig.defaults().with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0");
        Main main = GatewayMain.create(plain, Map.of());
        main.start();
        try {
            assertThat(main.getCamelContext().getRoute("discovery")).isNull();
            assertThat(main.getCamelContext().getRoute("readiness")).isNotNull();
            assertThat(main.getCamelContext().getRegistry().lookupByName("reconcileWorkers")).isNull();
        } finally {
            main.stop();
        }
        CamelContext camel = new DefaultCamelContext();
        CaravanGateway.install(camel, plain);
        camel.start();
        try {
            assertThat(camel.getRoute("discovery")).isNull();
            assertThat(camel.getRoute("readiness")).isNotNull();
        } finally {
            camel.stop();
        }
    }

    @Test
    void routesDirectoryWithTheDiscoveryFileStillStartsWithoutDiscovery(@TempDir Path dir) throws Exception {
        try (Stream<Path> files = Files.list(Path.of("..", "routes"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".camel.yaml")).toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        assertThat(dir.resolve(DiscoveryFeature.ROUTES_FILE)).exists();
        Main main = GatewayMain.create(GatewayConfig.defaults().with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0").with(CoreFlags.ROUTES, dir.toString()), Map.of());
        main.start();
        try {
            assertThat(main.getCamelContext().getRoute("discovery")).isNull();
            assertThat(main.getCamelContext().getRoute("liveness")).isNotNull();
        } finally {
            main.stop();
        }
    }

    @Test
    void discoveryWithoutSelectorIsRejectedNamingTheFlag() {
        GatewayConfig noSelector = GatewayConfig.defaults().with(CoreFlags.SERVICE_DISCOVERY, "true");
        assertThatThrownBy(() -> DiscoveryFeature.discoveryConfig(noSelector))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--selector");
    }

    @Test
    void sglangDiscoveryCommandLineWorksVerbatim() {
        GatewayConfig cli = GatewayConfig.of(ArgsParser.parse("--service-discovery", "--selector", "app=vllm",
                "tier=gpu", "--service-discovery-port", "8000", "--service-discovery-namespace", "llm",
                "--discovery-resync-interval", "30").properties());
        assertThat(new DiscoveryFeature().enabled(cli)).isTrue();
        var c = DiscoveryFeature.discoveryConfig(cli);
        assertThat(c.selector().pairs()).isEqualTo(Map.of("app", "vllm", "tier", "gpu"));
        assertThat(c.port()).isEqualTo(8000);
        assertThat(c.namespace()).isEqualTo("llm");
        assertThat(c.resyncInterval()).isEqualTo(Duration.ofSeconds(30));
        // replica sync (caravan-sync) is on the class path too, and off in both configurations
        assertThat(new GatewayBeans(cli.with(CoreFlags.PORT, "0"), null, null).excludedRoutes())
                .isEqualTo("**/sync.camel.yaml");
        assertThat(new GatewayBeans(GatewayConfig.defaults().with(CoreFlags.PORT, "0"), null, null).excludedRoutes()
                .split(",")).containsExactlyInAnyOrder("**/discovery.camel.yaml", "**/sync.camel.yaml");
    }

    @Test
    void prefillAndDecodeSelectorsComeFromTheirFlags() {
        GatewayConfig pd = GatewayConfig.defaults().with(CoreFlags.SERVICE_DISCOVERY, "true")
                .with(DiscoveryFeature.PREFILL_SELECTOR, "app=sglang,role=prefill")
                .with(DiscoveryFeature.DECODE_SELECTOR, "app=sglang,role=decode")
                .with(DiscoveryFeature.BOOTSTRAP_PORT_ANNOTATION, "example.com/bootstrap");
        var c = DiscoveryFeature.discoveryConfig(pd);
        assertThat(c.prefillDecodeMode()).isTrue();
        assertThat(c.prefillSelector().pairs()).isEqualTo(Map.of("app", "sglang", "role", "prefill"));
        assertThat(c.decodeSelector().pairs()).isEqualTo(Map.of("app", "sglang", "role", "decode"));
        assertThat(c.bootstrapPortAnnotation()).isEqualTo("example.com/bootstrap");
        assertThat(c.port()).isEqualTo(80);
        assertThat(c.resyncInterval()).isEqualTo(Duration.ofSeconds(120));
        assertThat(c.allNamespaces()).isTrue();
    }
}
