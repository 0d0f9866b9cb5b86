package dev.caravan.it;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * A gateway running in this JVM on 127.0.0.1 and an ephemeral port, built exactly as an embedding application builds
 * it ({@link CaravanGateway#install} on a fresh {@link DefaultCamelContext}). {@link #close()} stops it.
 *
 * <pre>{@code
 * try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(fleet.urls()))) {
 *     HttpResponse<String> r = new GatewayClient(gw.url()).postJson("/v1/completions", "{\"prompt\":\"hi\"}");
 * }
 * }</pre>
 */
public final class GatewayHarness implements AutoCloseable {

    /**
     * A system property that, when set, gives every gateway this harness starts its {@code --camel-tuning} value:
     * the second Failsafe run of the request-path ITs sets it to {@code false} (it-tests/pom.xml).
     */
    public static final String CAMEL_TUNING_PROPERTY = "caravan.camel-tuning";

    private final CamelContext context;
    private final CaravanGateway gateway;

    private GatewayHarness(CamelContext context, CaravanGateway gateway) {
        this.context = context;
        this.gateway = gateway;
    }

    /** A configuration bound to 127.0.0.1:0 with the given workers. */
    public static GatewayConfig config(List<String> workerUrls) {
        return GatewayConfig.defaults()
                .with(CoreFlags.HOST, "127.0.0.1")
                .with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "0")
                .with(CoreFlags.WORKER_URLS, String.join(",", workerUrls));
    }

    /** Starts a gateway and waits until it listens. */
    public static GatewayHarness start(GatewayConfig config) {
        return start(config, null);
    }

    /**
     * Starts a gateway whose meters go to {@code meters} (bound in the context, as an embedding application gives its
     * own registry), or to a registry of its own when null. {@link #CAMEL_TUNING_PROPERTY}, when set, overrides the
     * configuration's {@code --camel-tuning}.
     */
    public static GatewayHarness start(GatewayConfig config, PrometheusMeterRegistry meters) {
        String tuning = System.getProperty(CAMEL_TUNING_PROPERTY);
        GatewayConfig effective = tuning == null ? config : config.with(CoreFlags.CAMEL_TUNING, tuning);
        CamelContext context = new DefaultCamelContext();
        if (meters != null) {
            context.getRegistry().bind("meterRegistry", meters);
        }
        try {
            CaravanGateway gateway = CaravanGateway.install(context, effective);
            context.start();
            return new GatewayHarness(context, gateway);
        } catch (Exception e) {
            context.stop();
            throw new IllegalStateException("gateway did not start: " + e.getMessage(), e);
        }
    }

    /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
    public String url() {
        return "http://127.0.0.1:" + gateway.port();
    }

    public int port() {
        return gateway.port();
    }

    public WorkerRegistry workers() {
        return gateway.workers();
    }

    public CaravanGateway gateway() {
        return gateway;
    }

    public CamelContext context() {
        return context;
    }

    public GatewayClient client() {
        return new GatewayClient(url());
    }

    /** Waits up to {@code wait} until no worker has a request in flight (every lease released). */
    public void awaitNoLoad(Duration wait) {
        await().atMost(wait).until(() -> workers().all().stream().mapToInt(Worker::load).sum() == 0);
    }

    @Override
    public void close() {
        context.stop();
    }
}
