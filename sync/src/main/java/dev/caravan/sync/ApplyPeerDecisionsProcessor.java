package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code applyPeerDecisions} (sync-peer-decisions): a peer's decision batch into the fleet prefix index.
 * Messages of an unreadable schema or corrupt ones are counted and skipped; this replica's own are ignored.
 */
final class ApplyPeerDecisionsProcessor implements Processor {

    private final SyncNode node;

    ApplyPeerDecisionsProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        byte[] body = exchange.getIn().getBody(byte[].class);
        if (body == null) {
            node.metrics().skipped("decisions", "decode");
            return;
        }
        node.applyDecisions(body);
    }
}
