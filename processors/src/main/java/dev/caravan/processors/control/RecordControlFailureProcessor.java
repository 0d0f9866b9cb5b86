package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_ERROR;
import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_URL;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.RuntimeCamelException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Control step {@code recordControlFailure}, the {@code doCatch} of a control call: keeps why the call failed in
 * {@code CONTROL_ERROR} so the aggregation reports it per worker, instead of failing the whole fan-out. A worker that
 * answered with a failing status ({@link ControlCallFailedException}: counted by its breaker) keeps its answer instead:
 * status and body, as if the call had passed. A call its open breaker refused says so.
 */
public final class RecordControlFailureProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(RecordControlFailureProcessor.class);

    @Override
    public void process(Exchange exchange) {
        Throwable t = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (t instanceof RuntimeCamelException && t.getCause() != null) {
            t = t.getCause(); // the circuitBreaker EIP wraps checked exceptions (a timeout, a refused connection)
        }
        if (t instanceof ControlCallFailedException answered) {
            exchange.getMessage().getHeaders().clear();
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, answered.status());
            exchange.getMessage().setBody(answered.body());
            LOG.debug("Control call {} failed: {}", CONTROL_URL.get(exchange), answered.getMessage());
            return;
        }
        if (t instanceof CallNotPermittedException) {
            CONTROL_ERROR.set(exchange, "circuit breaker open");
            LOG.debug("Control call {} not sent: the worker's circuit breaker is open", CONTROL_URL.get(exchange));
            return;
        }
        String reason = t == null ? "unknown error" : (t.getMessage() == null ? t.getClass().getSimpleName()
                : t.getMessage());
        CONTROL_ERROR.set(exchange, reason);
        LOG.debug("Control call {} failed: {}", CONTROL_URL.get(exchange), reason);
    }
}
