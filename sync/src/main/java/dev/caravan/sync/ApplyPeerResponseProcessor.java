package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.hazelcast.HazelcastConstants;

import dev.caravan.processors.responses.ResponseAffinity;

/**
 * Route step {@code applyPeerResponse} (sync-peer-responses): an id added to {@code IMap caravan.responses} by any
 * replica (this one included) into this replica's {@link ResponseAffinity}, so that {@code previous_response_id} and
 * {@code GET /v1/responses/{id}} reach the engine that stored the response whichever replica the client reaches.
 * Expired and evicted entries change nothing here: the local map forgets on its own time-to-live.
 */
final class ApplyPeerResponseProcessor implements Processor {

    private final ResponseAffinity affinity;
    private final SyncMetrics metrics;

    ApplyPeerResponseProcessor(ResponseAffinity affinity, SyncMetrics metrics) {
        this.affinity = affinity;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        String action = exchange.getIn().getHeader(HazelcastConstants.LISTENER_ACTION, String.class);
        String id = exchange.getIn().getHeader(HazelcastConstants.OBJECT_ID, String.class);
        if (id == null || !(HazelcastConstants.ADDED.equals(action) || HazelcastConstants.UPDATED.equals(action))) {
            return;
        }
        String workerUrl = exchange.getIn().getBody(String.class);
        if (workerUrl == null || workerUrl.isEmpty()) {
            metrics.skipped(ResponseOutbox.CHANNEL, "decode");
            return;
        }
        affinity.remember(id, workerUrl);
        metrics.received(ResponseOutbox.CHANNEL);
    }
}
