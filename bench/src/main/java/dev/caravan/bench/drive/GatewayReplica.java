package dev.caravan.bench.drive;

import java.net.URI;
import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.sim.SimEngine;

/**
 * One Caravan gateway in this JVM, built exactly as an embedding application builds it: {@link CaravanGateway#install}
 * on its own {@link DefaultCamelContext}, listening on its own port. Several replicas over the same engines each keep
 * their own routing state, as separate gateway processes would.
 */
final class GatewayReplica implements AutoCloseable {

    private final CamelContext context = new DefaultCamelContext();
    private final CaravanGateway gateway;

    /**
     * Installs and starts the gateway.
     *
     * @param config    its configuration (port 0 for an ephemeral one)
     * @param kvEngines engines to register with their KV-event endpoints after the start (empty when the run reads
     *                  no KV events: the engines are then {@code --worker-urls} in {@code config})
     */
    GatewayReplica(GatewayConfig config, List<SimEngine> kvEngines) {
        try {
            gateway = CaravanGateway.install(context, config);
            context.start();
            kvEngines.forEach(e -> gateway.workers().add(Worker.builder(e.url()).modelId(e.config().model())
                    .kvEventsEndpoint(e.kvEventsEndpoint()).kvReplayEndpoint(e.kvReplayEndpoint()).build()));
        } catch (Exception e) {
            context.stop();
            throw e instanceof RuntimeException r ? r : new IllegalStateException("gateway did not start: " + e, e);
        }
    }

    /** The gateway's KV block index, or null when it reads no KV events. */
    KvBlockIndex kvIndex() {
        return gateway.beans().kv().ingestor() == null ? null : gateway.beans().kv().index();
    }

    /** kv_aware's parity self-check. */
    ParityTracker kvParity() {
        return gateway.beans().kv().parity();
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + gateway.port());
    }

    /** Stops the gateway (in-flight requests drain first). */
    @Override
    public void close() {
        context.stop();
    }
}
