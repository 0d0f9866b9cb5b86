package dev.caravan.processors.forward;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

import dev.caravan.processors.time.DelayScheduler;

/**
 * The clock, the timers and the limits a {@link RelayCore} enforces; one instance per relaying step, shared by all its
 * relays. Tests pass a hand-moved scheduler and its clock, so no relay test sleeps.
 *
 * @param nanoTime       the monotonic clock ({@link System#nanoTime()} in production)
 * @param timers         where the relay's one timer is set ({@code DelayScheduler.vertx} in production: it fires on
 *                       the event loop that set it, the relay's)
 * @param requestTimeout end-to-end limit, counted from the request's arrival ({@code --request-timeout-secs})
 * @param idleTimeout    longest silence from the worker; {@link Duration#ZERO} = no limit
 *                       ({@code --stream-idle-timeout-secs})
 * @param attemptTimeout longest wait for a non-streamed response's head, per attempt; {@link Duration#ZERO} = no limit
 *                       ({@code --non-stream-attempt-timeout-secs})
 */
public record RelayTiming(LongSupplier nanoTime, DelayScheduler timers, Duration requestTimeout, Duration idleTimeout,
                          Duration attemptTimeout) {

    public RelayTiming {
        Objects.requireNonNull(nanoTime, "nanoTime");
        Objects.requireNonNull(timers, "timers");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be > 0, was " + requestTimeout);
        }
        if (idleTimeout.isNegative() || attemptTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout and attemptTimeout must be >= 0, were " + idleTimeout
                    + " and " + attemptTimeout);
        }
    }

    /** The upstream client's limits on the system clock and its Vert.x instance's timers. */
    public static RelayTiming of(UpstreamClient upstream) {
        return new RelayTiming(System::nanoTime, upstream.timers(), upstream.requestTimeout(),
                upstream.idleTimeout(), upstream.nonStreamAttemptTimeout());
    }
}
