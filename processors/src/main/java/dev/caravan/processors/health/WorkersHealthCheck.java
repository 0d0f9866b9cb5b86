package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * Readiness check {@value #ID} (SGLang's readiness rule): UP when at least one worker of every role the gateway routes
 * to is healthy — one regular worker, or in P/D mode one prefill <em>and</em> one decode worker — else DOWN. Its details
 * carry what {@code GET /readiness} has always answered ({@code healthy_workers}, {@code total_workers}) plus the
 * per-role counts and the workers whose circuit breaker is open or half-open ({@code open_breakers},
 * {@code half_open_breakers}: URLs, comma-separated), so Camel's health API shows a tripped breaker too. A breaker does
 * not decide readiness: an open breaker is a routing verdict that heals itself, and SGLang's rule counts health only.
 */
public final class WorkersHealthCheck extends AbstractHealthCheck {

    public static final String ID = "caravan-workers";

    private final WorkerRegistry registry;
    private final BooleanSupplier prefillDecode;
    private final WorkerBreakers breakers;

    /**
     * @param registry      the workers
     * @param prefillDecode true when the gateway routes prefill/decode pairs (both roles needed)
     * @param breakers      the workers' circuit breakers (reported, not judged)
     */
    public WorkersHealthCheck(WorkerRegistry registry, BooleanSupplier prefillDecode, WorkerBreakers breakers) {
        super(GatewayHealthChecks.GROUP, ID);
        this.registry = registry;
        this.prefillDecode = prefillDecode;
        this.breakers = breakers;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        int healthy = 0;
        int prefill = 0;
        int decode = 0;
        List<String> open = new ArrayList<>();
        List<String> halfOpen = new ArrayList<>();
        List<Worker> all = registry.all();
        for (Worker w : all) {
            if (w.isHealthy()) {
                healthy++;
                if (w.role() == WorkerRole.PREFILL) {
                    prefill++;
                } else if (w.role() == WorkerRole.DECODE) {
                    decode++;
                }
            }
            BreakerState state = breakers.state(w);
            if (state == BreakerState.OPEN) {
                open.add(w.url());
            } else if (state == BreakerState.HALF_OPEN) {
                halfOpen.add(w.url());
            }
        }
        boolean pd = prefillDecode.getAsBoolean();
        builder.detail("healthy_workers", healthy);
        builder.detail("total_workers", all.size());
        if (pd) {
            builder.detail("healthy_prefill_workers", prefill);
            builder.detail("healthy_decode_workers", decode);
        }
        builder.detail("open_breakers", String.join(",", open));
        builder.detail("half_open_breakers", String.join(",", halfOpen));
        boolean ready = pd ? prefill > 0 && decode > 0 : healthy > 0;
        if (ready) {
            builder.up();
        } else {
            builder.message(pd ? "needs a healthy prefill and a healthy decode worker" : "insufficient healthy workers");
            builder.down();
        }
    }
}
