package dev.caravan.kubernetes;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.gateway.GatewayExtension;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * Kubernetes service discovery's part of the gateway: with {@code --service-discovery} it adds the beans
 * {@code routes/discovery.camel.yaml} references ({@code reconcileWorkers}, {@code discoveryMetrics}, and the
 * {@code workerReconciler} behind them); without it the route file is not loaded at all, so a gateway that does not
 * discover never talks to a Kubernetes API server. A {@link GatewayExtension}: the gateway finds it when this module is
 * on the class path.
 */
public final class DiscoveryBeans implements GatewayExtension {

    /** The route file that exists only with {@code --service-discovery}. */
    public static final String ROUTES_FILE = "discovery.camel.yaml";

    /** The name {@code dev.caravan.gateway.Extensions} knows the feature by. */
    public static final String NAME = "Kubernetes service discovery";

    /** Bean names the discovery route references (the gateway's own are named on their feature classes). */
    public static final String RECONCILE_WORKERS = "reconcileWorkers";
    /** The pod-watch consumer's {@code watchListener}. */
    public static final String DISCOVERY_METRICS = "discoveryMetrics";
    public static final String WORKER_RECONCILER = "workerReconciler";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String artifact() {
        return "dev.caravan:caravan-kubernetes";
    }

    @Override
    public String routesFile() {
        return ROUTES_FILE;
    }

    @Override
    public boolean enabled(GatewayConfig config) {
        return config.getBoolean(CoreFlags.SERVICE_DISCOVERY);
    }

    /**
     * The discovery settings from the flag table.
     *
     * @throws IllegalArgumentException naming the flag, e.g. when no selector is given
     */
    public static DiscoveryConfig discoveryConfig(GatewayConfig config) {
        return new DiscoveryConfig(
                LabelSelector.parse(config.getList(CoreFlags.SELECTOR)),
                LabelSelector.parse(config.getList(CoreFlags.PREFILL_SELECTOR)),
                LabelSelector.parse(config.getList(CoreFlags.DECODE_SELECTOR)),
                config.getInt(CoreFlags.SERVICE_DISCOVERY_PORT),
                config.get(CoreFlags.SERVICE_DISCOVERY_NAMESPACE),
                config.get(CoreFlags.BOOTSTRAP_PORT_ANNOTATION),
                config.get(CoreFlags.MODEL_ANNOTATION),
                config.get(CoreFlags.KV_EVENTS_ANNOTATION),
                config.get(CoreFlags.KV_REPLAY_ANNOTATION),
                Duration.ofSeconds(config.getLong(CoreFlags.DISCOVERY_RESYNC_INTERVAL)));
    }

    /** Adds the discovery beans ({@code --service-discovery} is set). */
    @Override
    public void define(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters, Map<String, Object> beans) {
        DiscoveryMetrics metrics = new DiscoveryMetrics(meters);
        WorkerReconciler reconciler = new WorkerReconciler(workers, new PodClassifier(discoveryConfig(config)), metrics);
        beans.put(DISCOVERY_METRICS, metrics);
        beans.put(WORKER_RECONCILER, reconciler);
        beans.put(RECONCILE_WORKERS, new ReconcileWorkersProcessor(reconciler));
    }
}
