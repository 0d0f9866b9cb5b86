package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;

import dev.caravan.processors.Json;

/**
 * Admin steps {@code checkReadiness} ({@code GET /readiness}) and {@code checkLiveness} ({@code GET /liveness}): the
 * verdict of the gateway's readiness or liveness checks as Camel's health-check registry gives it
 * ({@link GatewayHealthChecks}), so the probes Kubernetes sends and camel-main's health endpoint agree.
 *
 * <ul>
 *   <li>readiness, all UP: 200 {@code {status:"ready", healthy_workers, total_workers, checks:[...]}} (SGLang's fields
 *       first); else 503 {@code {status:"not ready", reason, ...}} with the first DOWN check's message as the reason
 *       ({@code "insufficient healthy workers"}, {@code "shutting down"}, ...);</li>
 *   <li>liveness, none DOWN: 200 {@code OK} (SGLang's answer); else 503 {@code {status:"not live", reason, checks}}.</li>
 * </ul>
 * Each entry of {@code checks} is {@code {id, state, message?}} plus the check's own details.
 */
public final class ReportHealthProcessor implements Processor {

    private final GatewayHealthChecks checks;
    private final boolean readiness;

    /**
     * @param checks    the gateway's checks
     * @param readiness true for {@code /readiness}, false for {@code /liveness}
     */
    public ReportHealthProcessor(GatewayHealthChecks checks, boolean readiness) {
        this.checks = checks;
        this.readiness = readiness;
    }

    @Override
    public void process(Exchange exchange) {
        Collection<HealthCheck.Result> results = checks.invoke(exchange.getContext(), readiness);
        boolean up = HealthCheckHelper.isResultsUp(results, readiness);
        if (up && !readiness) {
            exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "text/plain");
            exchange.getMessage().setBody("OK");
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", readiness ? (up ? "ready" : "not ready") : "not live");
        if (!up) {
            body.put("reason", results.stream().filter(r -> r.getState() == HealthCheck.State.DOWN)
                    .map(r -> r.getMessage().orElse(r.getCheck().getId())).findFirst().orElse("no checks"));
        }
        List<Map<String, Object>> each = new ArrayList<>();
        for (HealthCheck.Result r : results) {
            Map<String, Object> details = details(r);
            if (WorkersHealthCheck.ID.equals(r.getCheck().getId())) {
                body.put("healthy_workers", details.get("healthy_workers"));
                body.put("total_workers", details.get("total_workers"));
            }
            each.add(details);
        }
        body.put("checks", each);
        Json.respond(exchange, up ? 200 : 503, body);
    }

    private static Map<String, Object> details(HealthCheck.Result r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", r.getCheck().getId());
        out.put("state", r.getState().name());
        r.getMessage().ifPresent(m -> out.put("message", m));
        r.getDetails().forEach((k, v) -> {
            if (!HealthCheckHelper.isReservedKey(k)) {
                out.put(k, v);
            }
        });
        return out;
    }
}
