package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code drainSyncDecisions} (sync-publish-decisions): the next batch of this replica's decisions as one
 * message body, or the route stops when the outbox is empty.
 */
final class DrainSyncDecisionsProcessor implements Processor {

    private final SyncNode node;

    DrainSyncDecisionsProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        byte[] message = node.drainDecisions();
        if (message == null) {
            exchange.setRouteStop(true);
        } else {
            exchange.getIn().setBody(message);
        }
    }
}
