package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.Route;
import org.apache.camel.ServiceStatus;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.apache.camel.support.service.ServiceHelper;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.kv.KvEndpoints;
import dev.caravan.processors.kv.KvRouteManager;
import dev.caravan.processors.kv.KvSettings;

/**
 * Readiness check {@value #ID}: UP when every worker whose engine publishes KV events (its own endpoint, a pod
 * annotation, or {@code --kv-events-endpoint-template}: {@link KvEndpoints#publishes()}) has a live subscription — its
 * {@code kv-events-<id>} route exists, is started and its ZeroMQ consumer runs. UP when no worker publishes. DOWN while a
 * subscription is missing — right after a worker registers, until its route is up, and for good when the route cannot
 * be created (a malformed endpoint; the log says why) — with the workers concerned in {@code without_subscription}.
 *
 * <p>A subscription that is live but hears nothing is not this check's business: a SUB socket reconnects by itself, and
 * an engine's silence is reported by the publisher silence check ({@code caravan_kv_publisher_silent}).
 */
public final class KvSubscriptionsHealthCheck extends AbstractHealthCheck {

    public static final String ID = "caravan-kv-events";

    private final WorkerRegistry registry;
    private final KvSettings settings;

    public KvSubscriptionsHealthCheck(WorkerRegistry registry, KvSettings settings) {
        super(GatewayHealthChecks.GROUP, ID);
        this.registry = registry;
        this.settings = settings;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        int configured = 0;
        List<String> missing = new ArrayList<>();
        for (Worker w : registry.all()) {
            if (KvEndpoints.of(w, settings).publishes()) {
                configured++;
                if (!live(KvRouteManager.routeId(w))) {
                    missing.add(w.url());
                }
            }
        }
        builder.detail("configured_subscriptions", configured);
        builder.detail("live_subscriptions", configured - missing.size());
        builder.detail("without_subscription", String.join(",", missing));
        if (missing.isEmpty()) {
            builder.up();
        } else {
            builder.message(missing.size() + " worker(s) publish KV events without a live subscription: "
                    + String.join(", ", missing));
            builder.down();
        }
    }

    private boolean live(String routeId) {
        CamelContext camel = getCamelContext();
        if (camel == null) {
            return false;
        }
        ServiceStatus status = camel.getRouteController().getRouteStatus(routeId);
        Route route = camel.getRoute(routeId);
        if (status == null || !status.isStarted() || route == null) {
            return false;
        }
        Consumer consumer = route.getConsumer();
        return consumer != null && ServiceHelper.isStarted(consumer);
    }
}
