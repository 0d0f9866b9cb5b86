package dev.caravan.processors.kv;

import java.time.Duration;
import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;

/**
 * Control step {@code checkKvPublishers} (the {@code kv-publisher-check} timer route): finds workers that were sent
 * requests but whose KV publisher has been silent for longer than {@code --kv-silence-threshold-secs}. The ingestor
 * logs one WARN when a worker becomes silent and one INFO when its events come back (one warning per episode, not one
 * per tick); {@code caravan_kv_publisher_silent{worker}} is 1 meanwhile. Peers ship this failure silently: an engine
 * started without {@code --kv-events-config} or behind a firewall looks like a healthy worker whose cache is always
 * empty. The body is set to the silent workers, for routes that want to act on them.
 */
public final class CheckKvPublishersProcessor implements Processor {

    private final KvEventIngestor ingestor;
    private final Duration threshold;

    public CheckKvPublishersProcessor(KvEventIngestor ingestor, Duration threshold) {
        this.ingestor = ingestor;
        this.threshold = threshold;
    }

    @Override
    public void process(Exchange exchange) {
        List<Worker> silent = ingestor.silentWorkers(threshold);
        exchange.getMessage().setBody(silent);
    }
}
