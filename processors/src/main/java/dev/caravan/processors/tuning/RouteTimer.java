package dev.caravan.processors.tuning;

import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_END_NANOS;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.micrometer.MicrometerUtils;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyConfiguration;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyNamingStrategy;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.RoutePolicySupport;

import dev.caravan.processors.ExchangeProperty;

/**
 * The meters camel-micrometer's route policy keeps for one route (the {@code camel.route.policy} timer, the exchange
 * counters, the optional long-task timer: same names, tags, descriptions and settings, taken from the context's
 * {@link MicrometerRoutePolicyFactory}), kept per exchange without that policy's cost: Camel's names the exchange
 * property holding the timer sample with {@code String.format("%s-%s-%s", ..., routeId, exchangeId)}, twice per
 * exchange (which also makes the exchange generate its id); this one uses a fixed property name, which is enough as a
 * route runs once per exchange, and keeps the start time there. A request whose answer was streamed is timed to the
 * end of its response, not to Camel's route end a moment later (design/request-path.md, "Per-request cost"). Used for the {@code inference} route, which every inference request runs
 * ({@link RouteTimers}; docs/design/request-path.md, "Per-request cost").
 */
final class RouteTimer extends RoutePolicySupport {

    static final String SAMPLE = "caravanRouteTimerSample";
    static final String LONG_TASK_SAMPLE = "caravanRouteTimerLongTask";
    private static final ExchangeProperty<Long> STARTED = ExchangeProperty.of(SAMPLE, Long.class);
    private static final ExchangeProperty<LongTaskTimer.Sample> LONG_TASK =
            ExchangeProperty.of(LONG_TASK_SAMPLE, LongTaskTimer.Sample.class);

    private final MicrometerRoutePolicyFactory factory;
    private MeterRegistry registry;
    private Clock clock;
    private Timer timer;
    private LongTaskTimer longTaskTimer;
    private Counter total;
    private Counter succeeded;
    private Counter failed;
    private Counter failuresHandled;
    private Counter externalRedeliveries;

    RouteTimer(MicrometerRoutePolicyFactory factory) {
        this.factory = factory;
    }

    @Override
    public void onInit(Route route) {
        super.onInit(route);
        registry = factory.getMeterRegistry() != null ? factory.getMeterRegistry()
                : MicrometerUtils.getOrCreateMeterRegistry(route.getCamelContext().getRegistry(),
                        MicrometerConstants.METRICS_REGISTRY_NAME);
        clock = registry.config().clock();
        MicrometerRoutePolicyNamingStrategy naming = factory.getNamingStrategy();
        MicrometerRoutePolicyConfiguration config = factory.getPolicyConfiguration();
        Timer.Builder timerBuilder = Timer.builder(naming.getName(route)).tags(naming.getTags(route))
                .description("Route performance metrics");
        if (config.getTimerInitiator() != null) {
            config.getTimerInitiator().accept(timerBuilder);
        }
        timer = timerBuilder.register(registry);
        if (config.isLongTask()) {
            LongTaskTimer.Builder longTask = LongTaskTimer.builder(naming.getLongTaskName(route))
                    .tags(naming.getTags(route)).description("Route long task metric");
            if (config.getLongTaskInitiator() != null) {
                config.getLongTaskInitiator().accept(longTask);
            }
            longTaskTimer = longTask.register(registry);
        }
        if (config.isAdditionalCounters()) {
            Tags tags = naming.getExchangeStatusTags(route);
            total = config.isExchangesTotal() ? counter(naming.getExchangesTotalName(route), tags,
                    "Total number of processed exchanges") : null;
            succeeded = config.isExchangesSucceeded() ? counter(naming.getExchangesSucceededName(route), tags,
                    "Number of successfully completed exchanges") : null;
            failed = config.isExchangesFailed() ? counter(naming.getExchangesFailedName(route), tags,
                    "Number of failed exchanges") : null;
            failuresHandled = config.isFailuresHandled() ? counter(naming.getFailuresHandledName(route), tags,
                    "Number of failures handled") : null;
            externalRedeliveries = config.isExternalRedeliveries() ? counter(naming.getExternalRedeliveriesName(route),
                    tags, "Number of external initiated redeliveries (such as from JMS broker)") : null;
        }
    }

    private Counter counter(String name, Tags tags, String description) {
        return Counter.builder(name).tags(tags).description(description).register(registry);
    }

    @Override
    public void onExchangeBegin(Route route, Exchange exchange) {
        STARTED.set(exchange, clock.monotonicTime());
        if (longTaskTimer != null) {
            LONG_TASK.set(exchange, longTaskTimer.start());
        }
    }

    @Override
    public void onExchangeDone(Route route, Exchange exchange) {
        Long start = STARTED.get(exchange);
        if (start != null) {
            STARTED.remove(exchange);
            timer.record(endNanos(exchange) - start, TimeUnit.NANOSECONDS);
        }
        LongTaskTimer.Sample longTask = longTaskTimer != null ? LONG_TASK.get(exchange) : null;
        if (longTask != null) {
            LONG_TASK.remove(exchange);
            longTask.stop();
        }
        increment(total);
        if (exchange.isFailed()) {
            increment(failed);
            return;
        }
        increment(succeeded);
        if (failuresHandled != null && ExchangeHelper.isFailureHandled(exchange)) {
            failuresHandled.increment();
        }
        if (externalRedeliveries != null && exchange.isExternalRedelivered()) {
            externalRedeliveries.increment();
        }
    }

    /**
     * When the route's work ended: for a request whose answer the relay streamed, when its response ended
     * ({@code RESPONSE_END_NANOS}, on {@link System#nanoTime()}'s scale, so only when the registry's clock is the
     * system's); Camel resumes the route a moment later.
     */
    private long endNanos(Exchange exchange) {
        Long end = clock == Clock.SYSTEM ? RESPONSE_END_NANOS.get(exchange) : null;
        return end != null ? end : clock.monotonicTime();
    }

    private static void increment(Counter counter) {
        if (counter != null) {
            counter.increment();
        }
    }

    @Override
    public void onRemove(Route route) {
        for (var meter : new io.micrometer.core.instrument.Meter[] {timer, longTaskTimer, total, succeeded, failed,
                failuresHandled, externalRedeliveries}) {
            if (meter != null) {
                registry.remove(meter);
            }
        }
    }
}
