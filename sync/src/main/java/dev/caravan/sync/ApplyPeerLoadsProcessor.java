package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.hazelcast.HazelcastConstants;

/**
 * Route step {@code applyPeerLoads} (sync-peer-loads): a peer's load report (map entry added or updated) into every
 * worker's peer load; a removed or evicted entry drops that peer's counts.
 */
final class ApplyPeerLoadsProcessor implements Processor {

    private final SyncNode node;

    ApplyPeerLoadsProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        String action = exchange.getIn().getHeader(HazelcastConstants.LISTENER_ACTION, String.class);
        String key = exchange.getIn().getHeader(HazelcastConstants.OBJECT_ID, String.class);
        if (key == null) {
            return;
        }
        boolean present = HazelcastConstants.ADDED.equals(action) || HazelcastConstants.UPDATED.equals(action);
        try {
            node.applyLoads(key, present ? exchange.getIn().getBody(byte[].class) : null);
        } catch (IllegalArgumentException e) { // a key that is not a member id
            node.metrics().skipped("loads", "decode");
        }
    }
}
