package dev.caravan.processors.kv;

import static dev.caravan.processors.CaravanExchangeProperties.KV_WORKER_ID;

import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.Processor;

import dev.caravan.processors.CaravanExchangeProperties;

/**
 * Route step {@code applyKvEvents}: hands the decoded {@link KvEventMessage} body to the {@link KvEventIngestor} for
 * the worker named by {@link CaravanExchangeProperties#KV_WORKER_ID} (sequence tracking, replay, index update). Runs on
 * the worker's consumer thread, so one worker's messages are applied in order.
 */
public final class ApplyKvEventsProcessor implements Processor {

    private final KvEventIngestor ingestor;

    public ApplyKvEventsProcessor(KvEventIngestor ingestor) {
        this.ingestor = ingestor;
    }

    @Override
    public void process(Exchange exchange) throws InvalidPayloadException {
        String workerId = KV_WORKER_ID.get(exchange);
        if (workerId == null) {
            throw new IllegalStateException("exchange property " + CaravanExchangeProperties.KV_WORKER_ID
                    + " is not set: the KV-event route template must set it");
        }
        ingestor.onMessage(workerId, exchange.getIn().getMandatoryBody(KvEventMessage.class));
    }
}
