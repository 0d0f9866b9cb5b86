package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Route step {@code recordSyncFailure}: a publish that failed (the member is shutting down, partitioned, ...) is
 * logged and counted by route; routing goes on from local state and the next tick tries again.
 */
final class RecordSyncFailureProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(RecordSyncFailureProcessor.class);

    private final SyncMetrics metrics;

    RecordSyncFailureProcessor(SyncMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        Exception e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        String route = exchange.getFromRouteId();
        metrics.failed(route == null ? "unknown" : route);
        LOG.warn("Sync: {} failed: {}", route, e == null ? "unknown error" : e.toString());
    }
}
