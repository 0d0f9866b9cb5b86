package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code trackSyncMembers} (sync-members): after a member joined or left, forget the loads of members gone
 * and pull the prefix index of members not seen before (a joiner, or the far side of a healed partition).
 */
final class TrackSyncMembersProcessor implements Processor {

    private final SyncNode node;

    TrackSyncMembersProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        node.membershipChanged();
    }
}
