package dev.caravan.processors.forward;

import dev.caravan.policies.Worker;
import dev.caravan.processors.ExchangeProperty;

/**
 * Told the id of a response as it passes through the gateway, with the worker that produced it (a Responses API
 * response, which that worker's engine stores). When an exchange carries one under {@link #PROPERTY}, the forward step
 * reads the id from the response ({@link ResponseIdSniffer}) and reports it before the bytes that carry it reach the
 * client, so a follow-up request naming it can never arrive first.
 */
@FunctionalInterface
public interface ResponseIdSink {

    /** Set by a step before {@code forwardStream} to have the response's id reported. */
    ExchangeProperty<ResponseIdSink> PROPERTY = ExchangeProperty.of("caravanResponseIdSink", ResponseIdSink.class);

    /** Called once per response, on the relay's event loop: must be quick and must not throw. */
    void onResponseId(String responseId, Worker worker);
}
