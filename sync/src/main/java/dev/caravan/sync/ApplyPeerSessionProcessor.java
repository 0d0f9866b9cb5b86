package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.hazelcast.HazelcastConstants;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.SessionSharing;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Route step {@code applyPeerSession} (sync-peer-sessions): a session entry changed on the fleet map (a claim by any
 * replica, this one included) — the model's policy updates the key if it holds it, by version; an expired, evicted or
 * removed entry is forgotten by every policy that shares sessions.
 */
final class ApplyPeerSessionProcessor implements Processor {

    private final SyncNode node;
    private final PolicyRegistry policies;

    ApplyPeerSessionProcessor(SyncNode node, PolicyRegistry policies) {
        this.node = node;
        this.policies = policies;
    }

    @Override
    public void process(Exchange exchange) {
        String action = exchange.getIn().getHeader(HazelcastConstants.LISTENER_ACTION, String.class);
        String key = exchange.getIn().getHeader(HazelcastConstants.OBJECT_ID, String.class);
        if (key == null) {
            return;
        }
        if (HazelcastConstants.ADDED.equals(action) || HazelcastConstants.UPDATED.equals(action)) {
            byte[] value = exchange.getIn().getBody(byte[].class);
            SyncCodec.Session session = value == null ? null : node.readSession(value);
            if (session != null && policies.policies().get(session.model()) instanceof SessionSharing shared) {
                shared.sessionChanged(key, session.workers(), session.version());
            }
            return;
        }
        for (LoadBalancingPolicy p : policies.policies().values()) {
            if (p instanceof SessionSharing shared) {
                shared.sessionRemoved(key);
            }
        }
    }
}
