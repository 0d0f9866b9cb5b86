package dev.caravan.processors.health;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Step {@code applyHealthResults} of the {@code health-check} timer route: feeds each {@link HealthProbeResult} of the
 * body to {@link HealthChecker#apply}, which flips worker health with hysteresis.
 */
public final class ApplyHealthResultsProcessor implements Processor {

    private final HealthChecker checker;

    public ApplyHealthResultsProcessor(HealthChecker checker) {
        this.checker = checker;
    }

    @Override
    public void process(Exchange exchange) {
        List<?> results = exchange.getMessage().getBody(List.class);
        if (results == null) {
            return;
        }
        for (Object r : results) {
            if (r instanceof HealthProbeResult result) {
                checker.apply(result);
            }
        }
    }
}
