package dev.caravan.processors.admission;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drain before the gateway stops (SIGTERM/SIGINT through camel-main, or an embedding application stopping its
 * context): new inference requests are refused with 503 {@code shutting_down} and readiness fails at once (so a load
 * balancer stops sending), requests still queued for a slot are refused too, and the calling thread waits until every
 * admitted request — every relayed stream — has finished, or the grace period has passed. Only then do the routes and the
 * HTTP server stop (new connections are then refused).
 *
 * <p>Camel's own graceful shutdown would also wait for in-flight exchanges, but only within its own timeout and after
 * it has already begun stopping routes; this drain runs first, bounded by {@code --shutdown-grace-period-secs}.
 */
public final class GracefulShutdown {

    private static final Logger LOG = LoggerFactory.getLogger(GracefulShutdown.class);

    private final AdmissionController admission;
    private final Duration grace;

    public GracefulShutdown(AdmissionController admission, Duration grace) {
        this.admission = admission;
        this.grace = grace;
    }

    /**
     * Drains; blocks the calling thread (a shutdown thread, never an event loop).
     *
     * @return true when every in-flight request finished within the grace period
     */
    public boolean drain() {
        if (admission.draining()) {
            return admission.inFlight() == 0;
        }
        int inFlight = admission.inFlight();
        LOG.info("Shutting down: refusing new requests; waiting up to {} s for {} in-flight request(s)",
                grace.toSeconds(), inFlight);
        admission.startDraining();
        long start = System.nanoTime();
        try {
            boolean idle = admission.awaitIdle(grace);
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (idle) {
                LOG.info("Drained in {} ms", ms);
            } else {
                LOG.warn("Grace period of {} s over with {} request(s) still in flight; they are cut",
                        grace.toSeconds(), admission.inFlight());
            }
            return idle;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public boolean draining() {
        return admission.draining();
    }

    public Duration grace() {
        return grace;
    }
}
