package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.hazelcast.HazelcastConstants;

/**
 * Route step {@code applyPeerTenantUsage} (sync-peer-tenant-usage): a peer's per-tenant totals (entry added or updated)
 * charged to this replica's tenant buckets; a removed or evicted entry forgets the peer. This replica's own entry is
 * skipped.
 */
final class ApplyPeerTenantUsageProcessor implements Processor {

    private final SyncNode node;
    private final PeerTenantUsage usage;

    ApplyPeerTenantUsageProcessor(SyncNode node, PeerTenantUsage usage) {
        this.node = node;
        this.usage = usage;
    }

    @Override
    public void process(Exchange exchange) {
        String action = exchange.getIn().getHeader(HazelcastConstants.LISTENER_ACTION, String.class);
        String key = exchange.getIn().getHeader(HazelcastConstants.OBJECT_ID, String.class);
        if (key == null || key.equals(node.origin().toString())) {
            return;
        }
        boolean present = HazelcastConstants.ADDED.equals(action) || HazelcastConstants.UPDATED.equals(action);
        usage.apply(key, present ? exchange.getIn().getBody(byte[].class) : null);
        if (present) {
            node.metrics().received("tenant-usage");
        }
    }
}
