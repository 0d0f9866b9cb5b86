package dev.caravan.gateway;

import java.util.List;
import java.util.Map;

import io.vertx.core.Vertx;

import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.health.EventLoopHeartbeat;
import dev.caravan.processors.health.EventLoopsHealthCheck;
import dev.caravan.processors.health.GatewayHealthChecks;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.health.KvSubscriptionsHealthCheck;
import dev.caravan.processors.health.ListenerHealthCheck;
import dev.caravan.processors.health.ReportHealthProcessor;
import dev.caravan.processors.health.WorkersHealthCheck;
import dev.caravan.processors.kv.KvSettings;

/**
 * The gateway's readiness and liveness checks (docs/reliability.md, "Readiness and liveness") and the steps that serve
 * them ({@code checkReadiness}, {@code checkLiveness}). {@link CaravanGateway} registers the checks with the Camel
 * context's health-check registry; {@link #close} stops the event-loop heartbeats.
 */
final class HealthBeans implements AutoCloseable {

    private final GatewayHealthChecks checks;
    private final EventLoopHeartbeat heartbeat;

    private HealthBeans(GatewayHealthChecks checks, EventLoopHeartbeat heartbeat) {
        this.checks = checks;
        this.heartbeat = heartbeat;
    }

    /**
     * Builds the checks on the gateway's parts and adds the steps to {@code beans}.
     *
     * @param prefillDecode true when the gateway routes prefill/decode pairs (readiness then needs both roles)
     */
    static HealthBeans define(GatewayConfig config, Vertx vertx, WorkerRegistry workers, boolean prefillDecode,
                              ReliabilityBeans reliability, KvSettings kv, GatewayHttpServer http,
                              Map<String, Object> beans) {
        EventLoopHeartbeat heartbeat = new EventLoopHeartbeat(vertx.nettyEventLoopGroup(),
                EventLoopHeartbeat.DEFAULT_PERIOD, System::nanoTime);
        GatewayHealthChecks checks = new GatewayHealthChecks(List.of(
                new WorkersHealthCheck(workers, () -> prefillDecode, reliability.breakers()),
                new KvSubscriptionsHealthCheck(workers, kv),
                new ListenerHealthCheck(http, reliability.admission()::draining),
                new EventLoopsHealthCheck(heartbeat, config.getSeconds(HealthFeature.EVENT_LOOP_STALL_SECS))));
        beans.put(BeanNames.GATEWAY_HEALTH_CHECKS, checks);
        beans.put(BeanNames.CHECK_READINESS, new ReportHealthProcessor(checks, true));
        beans.put(BeanNames.CHECK_LIVENESS, new ReportHealthProcessor(checks, false));
        return new HealthBeans(checks, heartbeat);
    }

    GatewayHealthChecks checks() {
        return checks;
    }

    @Override
    public void close() {
        heartbeat.close();
    }
}
