package dev.caravan.processors.control;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;

import dev.caravan.processors.reliability.AttemptOutcome;

/**
 * Control step {@code checkControlAnswer}, after {@code callWorker} inside a worker's control route (the
 * circuitBreaker EIP of {@code routes/control.camel.yaml}): throws a {@link ControlCallFailedException} when the answer
 * counts as the worker's failure — a 5xx other than 503, the data plane's rule ({@link AttemptOutcome#ofStatus}) — so
 * the worker's breaker records it. Any other answer passes unchanged (2xx, and the neutral 4xx and 503: a vLLM without
 * {@code /get_load} answers 404 every poll, which says nothing against it).
 */
public final class CheckControlAnswerProcessor implements Processor {

    @Override
    public void process(Exchange exchange) {
        Message m = exchange.getMessage();
        Integer status = m.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status != null && AttemptOutcome.ofStatus(status) == AttemptOutcome.FAILURE) {
            ControlCall call = ControlCall.PROPERTY.get(exchange);
            throw new ControlCallFailedException(call == null ? "worker" : call.url(), status, m.getBody(String.class));
        }
    }
}
