package dev.caravan.processors.health;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Step {@code planHealthChecks} of the {@code health-check} timer route: sets the body to the {@code List<HealthProbe>}
 * due this tick ({@link HealthChecker#due()}); an empty list when none is.
 */
public final class PlanHealthChecksProcessor implements Processor {

    private final HealthChecker checker;

    public PlanHealthChecksProcessor(HealthChecker checker) {
        this.checker = checker;
    }

    @Override
    public void process(Exchange exchange) {
        exchange.getMessage().setBody(checker.due());
    }
}
