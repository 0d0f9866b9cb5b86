package dev.caravan.sync;

import java.util.HashMap;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code drainSyncResponses} (sync-publish-responses): the next batch of this replica's Responses API ids as
 * the body of a {@code putAll} on {@code IMap caravan.responses}, or the route stops when none waits.
 */
final class DrainSyncResponsesProcessor implements Processor {

    private final ResponseOutbox outbox;
    private final SyncMetrics metrics;

    DrainSyncResponsesProcessor(ResponseOutbox outbox, SyncMetrics metrics) {
        this.outbox = outbox;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        HashMap<String, String> batch = outbox.drain();
        if (batch == null) {
            exchange.setRouteStop(true);
            return;
        }
        exchange.getIn().setBody(batch);
        metrics.published(ResponseOutbox.CHANNEL, batch.size());
    }
}
