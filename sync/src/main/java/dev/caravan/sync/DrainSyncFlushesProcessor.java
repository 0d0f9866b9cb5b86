package dev.caravan.sync;

import java.util.ArrayList;
import java.util.Queue;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code drainSyncFlushes} (sync-publish-flushes): the URLs of the workers whose engine caches were flushed
 * through this replica ({@code POST /flush_cache}) since the last tick, as one topic message, or the route stops when
 * there were none.
 */
final class DrainSyncFlushesProcessor implements Processor {

    /** The channel name in the sync metrics. */
    static final String CHANNEL = "flushes";

    private final Queue<String> flushed;
    private final SyncMetrics metrics;

    DrainSyncFlushesProcessor(Queue<String> flushed, SyncMetrics metrics) {
        this.flushed = flushed;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        ArrayList<String> urls = new ArrayList<>();
        for (String url = flushed.poll(); url != null; url = flushed.poll()) {
            urls.add(url);
        }
        if (urls.isEmpty()) {
            exchange.setRouteStop(true);
            return;
        }
        exchange.getIn().setBody(urls);
        metrics.published(CHANNEL, 1);
    }
}
