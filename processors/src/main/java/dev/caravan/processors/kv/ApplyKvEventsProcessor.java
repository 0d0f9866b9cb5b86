package dev.caravan.processors.kv;

import static dev.caravan.processors.CaravanExchangeProperties.KV_RANK;
import static dev.caravan.processors.CaravanExchangeProperties.KV_WORKER_ID;

import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.Processor;

import dev.caravan.processors.CaravanExchangeProperties;

/**
 * Route step {@code applyKvEvents}: hands the decoded {@link KvEventMessage} body to the {@link KvEventIngestor} for
 * the worker named by {@link CaravanExchangeProperties#KV_WORKER_ID}, subscribed on the DP rank named by
 * {@link CaravanExchangeProperties#KV_RANK} (sequence tracking, replay, index update). Runs on the subscription's
 * consumer thread, so one rank's messages are applied in order.
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
        String rank = KV_RANK.get(exchange);
        ingestor.onMessage(workerId, rank == null || rank.isEmpty() ? 0 : Integer.parseInt(rank),
                exchange.getIn().getMandatoryBody(KvEventMessage.class));
    }
}
