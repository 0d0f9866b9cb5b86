package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/** Route step {@code touchSyncSessions}: restarts the fleet-wide idle time of the routing keys this replica routed. */
final class TouchSyncSessionsProcessor implements Processor {

    private final SyncNode node;

    TouchSyncSessionsProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        node.touchSessions();
    }
}
