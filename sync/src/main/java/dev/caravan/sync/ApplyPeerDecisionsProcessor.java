package dev.caravan.sync;

import com.hazelcast.topic.Message;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code applyPeerDecisions} (sync-peer-decisions): a peer's decision batch into the fleet prefix index.
 * Messages of an unreadable schema or corrupt ones are counted and skipped; this replica's own are ignored. The topic
 * consumer's body is Hazelcast's {@link Message}, whose payload is the encoded batch.
 */
final class ApplyPeerDecisionsProcessor implements Processor {

    private final SyncNode node;

    ApplyPeerDecisionsProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        Object body = exchange.getIn().getBody();
        if (body instanceof Message<?> m) {
            body = m.getMessageObject();
        }
        if (!(body instanceof byte[] bytes)) {
            node.metrics().skipped("decisions", "decode");
            return;
        }
        node.applyDecisions(bytes);
    }
}
