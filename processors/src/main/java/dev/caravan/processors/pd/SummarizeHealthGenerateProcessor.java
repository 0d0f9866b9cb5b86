package dev.caravan.processors.pd;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.control.ControlResult;
import dev.caravan.processors.error.GatewayError;

/**
 * Admin step {@code summarizeHealthGenerate}: 200 {@code Health generate passed on ...} when every worker planned by
 * {@link PlanHealthGenerateProcessor} answered 2xx, else 503 {@code health_generate_failed} naming each failure.
 *
 * <p>Reads the body ({@code List<ControlResult>}). Writes the response.
 */
public final class SummarizeHealthGenerateProcessor implements Processor {

    @Override
    public void process(Exchange exchange) {
        List<String> passed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        List<?> results = exchange.getMessage().getBody(List.class);
        for (Object o : results == null ? List.of() : results) {
            if (!(o instanceof ControlResult r)) {
                continue;
            }
            String who = r.call().worker().role().wireName() + " " + r.call().worker().url();
            if (r.ok()) {
                passed.add(who);
            } else {
                failed.add(who + ": " + r.reason());
            }
        }
        if (!failed.isEmpty() || passed.isEmpty()) {
            throw GatewayError.HEALTH_GENERATE_FAILED.exception("Health generate failed on " + String.join("; ", failed));
        }
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "text/plain");
        exchange.getMessage().setBody("Health generate passed on " + String.join(", ", passed));
    }
}
