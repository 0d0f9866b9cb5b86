package dev.caravan.sync;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import com.hazelcast.topic.Message;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Route step {@code applyPeerFlushes} (sync-peer-flushes): the workers whose engine caches a peer replica flushed are
 * forgotten by this replica's policies too (its tree and its copy of the fleet prefix index would otherwise keep
 * sending requests to an empty cache as hits). This replica's own messages are ignored: it forgot them when it
 * flushed.
 */
final class ApplyPeerFlushesProcessor implements Processor {

    private final WorkerRegistry workers;
    private final List<PolicyRegistry> policies;
    private final SyncMetrics metrics;

    ApplyPeerFlushesProcessor(WorkerRegistry workers, List<PolicyRegistry> policies, SyncMetrics metrics) {
        this.workers = workers;
        this.policies = List.copyOf(policies);
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        Object body = exchange.getIn().getBody();
        if (body instanceof Message<?> m) {
            if (m.getPublishingMember() != null && m.getPublishingMember().localMember()) {
                return;
            }
            body = m.getMessageObject();
        }
        if (!(body instanceof List<?> urls)) {
            metrics.skipped(DrainSyncFlushesProcessor.CHANNEL, "decode");
            return;
        }
        for (Worker w : workers.all()) {
            if (urls.contains(w.url())) {
                policies.forEach(p -> p.forgetFlushedCache(w));
            }
        }
        metrics.received(DrainSyncFlushesProcessor.CHANNEL);
    }
}
