package dev.caravan.processors.health;

import java.util.Map;
import java.util.function.BooleanSupplier;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

import dev.caravan.components.http.GatewayHttpServer;

/**
 * Readiness check {@value #ID}: UP while the gateway's HTTP server has its socket bound and the gateway is not draining.
 * DOWN before the socket is bound, after it closed, and from the moment a stop begins ({@code "shutting down"}: new
 * inference requests get 503 from then on, so a load balancer should stop sending them).
 */
public final class ListenerHealthCheck extends AbstractHealthCheck {

    public static final String ID = "caravan-listener";
    /** The message while draining; {@code GET /readiness} shows it as the reason. */
    public static final String SHUTTING_DOWN = "shutting down";

    private final GatewayHttpServer server;
    private final BooleanSupplier draining;

    /**
     * @param server   the gateway's HTTP server
     * @param draining true once the gateway stops admitting requests (graceful shutdown has begun)
     */
    public ListenerHealthCheck(GatewayHttpServer server, BooleanSupplier draining) {
        super(GatewayHealthChecks.GROUP, ID);
        this.server = server;
        this.draining = draining;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        boolean listening = server.listening();
        boolean stopping = draining.getAsBoolean();
        builder.detail("address", server.host() + ":" + server.port());
        builder.detail("listening", listening);
        builder.detail("draining", stopping);
        if (stopping) {
            builder.message(SHUTTING_DOWN);
            builder.down();
        } else if (!listening) {
            builder.message("the HTTP server is not listening");
            builder.down();
        } else {
            builder.up();
        }
    }
}
