package dev.caravan.processors.pd;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * P/D route step {@code decidePdVerdict}, for the sequential vLLM route (the SGLang route's multicast decides in its
 * aggregation strategy instead): records the decode leg's result (the body) and decides the attempt from both legs.
 *
 * <p>Reads the body ({@link LegResult}), {@code PdDispatch.PROPERTY}. Writes {@code PdVerdict.PROPERTY}.
 */
public final class DecideVerdictProcessor implements Processor {

    private final LegOutcomes outcomes;

    public DecideVerdictProcessor(LegOutcomes outcomes) {
        this.outcomes = outcomes;
    }

    @Override
    public void process(Exchange exchange) {
        LegResult result = exchange.getIn().getBody(LegResult.class);
        PdDispatch dispatch = PdDispatch.PROPERTY.get(exchange);
        if (result == null || dispatch == null) {
            throw new IllegalStateException("decidePdVerdict needs a leg's result body and openPdDispatch before it");
        }
        dispatch.arrived(result);
        PdVerdict.PROPERTY.set(exchange, dispatch.conclude(outcomes));
    }
}
