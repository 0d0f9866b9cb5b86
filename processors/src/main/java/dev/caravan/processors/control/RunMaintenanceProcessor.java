package dev.caravan.processors.control;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.LongSupplier;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Control step {@code runMaintenance} (the {@code policy-maintenance} timer route, which ticks often): runs each
 * {@link Maintainable} policy's housekeeping — cache_aware tree eviction at {@code --eviction-interval}, bucket
 * re-balancing, manual's idle-key sweep — when its own {@link Maintainable#maintenanceInterval()} has elapsed since its
 * last run. A zero interval disables it. Failures are logged and do not stop the next policy. Called from one timer
 * thread at a time.
 *
 * <p>"Elapsed" allows for the timer's jitter: a tick that comes up to half a timer period early counts as due (the
 * period is read from the timer's {@link Exchange#TIMER_PERIOD} property; none, no allowance). Without it a 1 s timer
 * firing a millisecond early ran an N-second interval every N + 1 ticks, so bucket ranges were cut one tick late from
 * a window of N seconds and a second of requests per cycle was never counted.
 */
public final class RunMaintenanceProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(RunMaintenanceProcessor.class);

    private final List<PolicyRegistry> policies;
    private final LongSupplier nanoTime;
    private final Map<LoadBalancingPolicy, Long> lastRun = new WeakHashMap<>();

    public RunMaintenanceProcessor(PolicyRegistry policies, LongSupplier nanoTime) {
        this(List.of(policies), nanoTime);
    }

    /** @param policies the live policies and any others to keep (the shadow policies' trees) */
    public RunMaintenanceProcessor(List<PolicyRegistry> policies, LongSupplier nanoTime) {
        this.policies = List.copyOf(policies);
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized void process(Exchange exchange) {
        long now = nanoTime.getAsLong();
        long slack = halfTimerPeriodNanos(exchange);
        for (PolicyRegistry registry : policies) {
            maintain(registry, now, slack);
        }
    }

    private static long halfTimerPeriodNanos(Exchange exchange) {
        Long periodMillis = exchange == null ? null : exchange.getProperty(Exchange.TIMER_PERIOD, Long.class);
        return periodMillis == null || periodMillis <= 0 ? 0 : Duration.ofMillis(periodMillis).toNanos() / 2;
    }

    private void maintain(PolicyRegistry registry, long now, long slack) {
        for (Map.Entry<String, LoadBalancingPolicy> e : registry.policies().entrySet()) {
            if (!(e.getValue() instanceof Maintainable m)) {
                continue;
            }
            Duration interval = m.maintenanceInterval();
            if (interval.isZero() || interval.isNegative()) {
                continue;
            }
            Long last = lastRun.putIfAbsent(e.getValue(), now);
            if (last == null || now - last < interval.toNanos() - slack) {
                continue; // the first sighting starts the clock
            }
            lastRun.put(e.getValue(), now);
            try {
                m.runMaintenance();
                LOG.debug("Maintenance of {} for model {} done", e.getValue().name(), e.getKey());
            } catch (RuntimeException ex) {
                LOG.warn("Maintenance of {} for model {} failed: {}", e.getValue().name(), e.getKey(), ex.toString());
            }
        }
    }
}
