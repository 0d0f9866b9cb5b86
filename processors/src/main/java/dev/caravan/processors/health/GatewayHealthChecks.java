package dev.caravan.processors.health;

import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.health.HealthCheckRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's own health checks (group {@value #GROUP}), registered with Camel's {@link HealthCheckRegistry}, and the
 * one way the gateway reads them: through that registry, exactly as camel-main's health endpoint and every other Camel
 * tool do, so {@code GET /readiness} and {@code GET /liveness} give the registry's verdicts.
 *
 * <ul>
 *   <li>readiness: {@link WorkersHealthCheck} (a healthy worker of every role), {@link KvSubscriptionsHealthCheck}
 *       (KV-event subscriptions live where configured), {@link ListenerHealthCheck} (socket bound, not draining),
 *       {@link ChatTokensHealthCheck} (always UP: the models whose chat requests kv_aware cannot match);</li>
 *   <li>liveness: {@link EventLoopsHealthCheck} (the event loops run).</li>
 * </ul>
 *
 * <p>Camel's own checks (context, routes, consumers) are in the same registry when the host enables them; the gateway's
 * endpoints answer for the gateway's group only, so neither an embedding application's checks nor Camel's context check
 * (DOWN from the first moment of a graceful stop) can make a draining gateway fail its liveness probe.
 */
public final class GatewayHealthChecks {

    /** The group of every gateway check. */
    public static final String GROUP = "caravan";

    private static final Logger LOG = LoggerFactory.getLogger(GatewayHealthChecks.class);

    private final List<HealthCheck> checks;

    public GatewayHealthChecks(List<HealthCheck> checks) {
        this.checks = List.copyOf(checks);
    }

    public List<HealthCheck> all() {
        return checks;
    }

    /**
     * Gives the checks the context and registers them with its health-check registry (none without camel-health on the
     * class path: the endpoints then call the checks themselves).
     */
    public void register(CamelContext context) {
        checks.forEach(c -> CamelContextAware.trySetCamelContext(c, context));
        HealthCheckRegistry registry = HealthCheckRegistry.get(context);
        if (registry == null) {
            LOG.warn("No Camel HealthCheckRegistry (camel-health is not on the class path): the gateway's readiness and"
                    + " liveness checks are served by /readiness and /liveness only");
            return;
        }
        checks.forEach(registry::register);
    }

    /**
     * The verdicts of the gateway's readiness (or liveness) checks, read through the context's registry; straight from
     * the checks when the registry is missing or disabled ({@code camel.health.enabled = false}). A check the operator
     * excluded from the registry ({@code camel.health.excludePattern}) is left out, as Camel leaves it out.
     */
    public Collection<HealthCheck.Result> invoke(CamelContext context, boolean readiness) {
        HealthCheck.Kind kind = readiness ? HealthCheck.Kind.READINESS : HealthCheck.Kind.LIVENESS;
        Map<String, Object> options = Map.of(HealthCheck.CHECK_KIND, kind);
        HealthCheckRegistry registry = HealthCheckRegistry.get(context);
        if (registry == null || !registry.isEnabled()) {
            return checks.stream().filter(c -> ofKind(c, readiness)).map(c -> c.call(options)).toList();
        }
        return HealthCheckHelper.invoke(context, c -> options,
                c -> !GROUP.equals(c.getGroup()) || !ofKind(c, readiness), "full");
    }

    private static boolean ofKind(HealthCheck check, boolean readiness) {
        return readiness ? check.isReadiness() : check.isLiveness();
    }
}
