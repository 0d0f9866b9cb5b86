package dev.caravan.gateway;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.discovery.DiscoveryConfig;
import dev.caravan.processors.discovery.DiscoveryMetrics;
import dev.caravan.processors.discovery.LabelSelector;
import dev.caravan.processors.discovery.PodClassifier;
import dev.caravan.processors.discovery.ReconcileWorkersProcessor;
import dev.caravan.processors.discovery.WorkerReconciler;

/**
 * Kubernetes service discovery's part of the gateway: with {@code --service-discovery} it adds the beans
 * {@code routes/discovery.camel.yaml} references ({@code reconcileWorkers}, {@code discoveryMetrics}, and the
 * {@code workerReconciler} behind them); without it the route file is not loaded at all ({@link #excludedRoutes}), so a
 * gateway that does not discover never talks to a Kubernetes API server.
 */
public final class DiscoveryBeans {

    /** The route file that exists only with {@code --service-discovery}. */
    public static final String ROUTES_FILE = "discovery.camel.yaml";

    private DiscoveryBeans() {
    }

    public static boolean enabled(GatewayConfig config) {
        return config.getBoolean(CaravanFlags.SERVICE_DISCOVERY);
    }

    /** True when discovery runs a prefill/decode fleet (a P/D selector is set): readiness then needs both roles. */
    public static boolean prefillDecodeMode(GatewayConfig config) {
        return enabled(config) && (!config.getList(CaravanFlags.PREFILL_SELECTOR).isEmpty()
                || !config.getList(CaravanFlags.DECODE_SELECTOR).isEmpty());
    }

    /**
     * The discovery settings from the flag table.
     *
     * @throws IllegalArgumentException naming the flag, e.g. when no selector is given
     */
    public static DiscoveryConfig discoveryConfig(GatewayConfig config) {
        return new DiscoveryConfig(
                LabelSelector.parse(config.getList(CaravanFlags.SELECTOR)),
                LabelSelector.parse(config.getList(CaravanFlags.PREFILL_SELECTOR)),
                LabelSelector.parse(config.getList(CaravanFlags.DECODE_SELECTOR)),
                config.getInt(CaravanFlags.SERVICE_DISCOVERY_PORT),
                config.get(CaravanFlags.SERVICE_DISCOVERY_NAMESPACE),
                config.get(CaravanFlags.BOOTSTRAP_PORT_ANNOTATION),
                config.get(CaravanFlags.MODEL_ANNOTATION),
                config.get(CaravanFlags.KV_EVENTS_ANNOTATION),
                config.get(CaravanFlags.KV_REPLAY_ANNOTATION),
                Duration.ofSeconds(config.getLong(CaravanFlags.DISCOVERY_RESYNC_INTERVAL)));
    }

    /** Adds the discovery beans when {@code --service-discovery} is set; returns the reconciler, or null. */
    static WorkerReconciler define(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters,
                                   Map<String, Object> beans) {
        if (!enabled(config)) {
            return null;
        }
        DiscoveryMetrics metrics = new DiscoveryMetrics(meters);
        WorkerReconciler reconciler = new WorkerReconciler(workers, new PodClassifier(discoveryConfig(config)), metrics);
        beans.put("discoveryMetrics", metrics);
        beans.put("workerReconciler", reconciler);
        beans.put("reconcileWorkers", new ReconcileWorkersProcessor(reconciler));
        return reconciler;
    }

    /** Ant-style patterns of built-in route files to leave out with this configuration (camel-main's syntax). */
    public static String excludedRoutes(GatewayConfig config) {
        return enabled(config) ? "" : "**/" + ROUTES_FILE;
    }
}
