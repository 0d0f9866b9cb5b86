package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_ERROR;
import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_URL;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Control step {@code recordControlFailure}, the {@code doCatch} of a control call: keeps why the call failed in
 * {@code CONTROL_ERROR} so the aggregation reports it per worker, instead of failing the whole fan-out.
 */
public final class RecordControlFailureProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(RecordControlFailureProcessor.class);

    @Override
    public void process(Exchange exchange) {
        Throwable t = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        String reason = t == null ? "unknown error" : (t.getMessage() == null ? t.getClass().getSimpleName()
                : t.getMessage());
        CONTROL_ERROR.set(exchange, reason);
        LOG.debug("Control call {} failed: {}", CONTROL_URL.get(exchange), reason);
    }
}
