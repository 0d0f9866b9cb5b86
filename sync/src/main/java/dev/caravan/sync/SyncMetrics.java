package dev.caravan.sync;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The {@code caravan_sync_*} meters: what was published, received, skipped (and why), dropped and failed per channel
 * ({@code decisions}, {@code loads}, {@code sessions}, {@code snapshots}), the sync lag (send time on the cluster clock to
 * apply time, p50/p99), bytes per published decision, the members seen, the fleet prefix index's size, and session
 * claims by outcome. Sync problems show up here and in the log, never as request errors.
 */
final class SyncMetrics {

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> lags = new ConcurrentHashMap<>();
    private final DistributionSummary decisionBytes;

    SyncMetrics(MeterRegistry registry, Supplier<Number> members, Supplier<Number> peerPrefixes) {
        this.registry = registry;
        Gauge.builder("caravan.sync.members", members).description("Members in this replica's sync cluster")
                .register(registry);
        Gauge.builder("caravan.sync.peer.prefixes", peerPrefixes)
                .description("Entries in the fleet prefix index (cache_aware's shared decisions)").register(registry);
        this.decisionBytes = DistributionSummary.builder("caravan.sync.decision.bytes").baseUnit("bytes")
                .description("Bytes per published routing decision (keyed prefix hashes, no text)")
                .publishPercentiles(0.5, 0.99).register(registry);
    }

    private Counter counter(String name, String description, String... tags) {
        String key = name + String.join("\0", tags);
        return counters.computeIfAbsent(key, k -> Counter.builder(name).description(description).tags(tags)
                .register(registry));
    }

    void published(String channel, int messages) {
        counter("caravan.sync.messages.published", "Sync messages published", "channel", channel).increment(messages);
    }

    void decisionsPublished(int decisions, int bytes) {
        counter("caravan.sync.decisions.published", "Routing decisions published").increment(decisions);
        for (int i = 0; i < decisions; i++) {
            decisionBytes.record((double) bytes / decisions);
        }
    }

    void received(String channel) {
        counter("caravan.sync.messages.received", "Sync messages applied", "channel", channel).increment();
    }

    void skipped(String channel, String reason) {
        counter("caravan.sync.messages.skipped", "Sync messages not applied (schema, decode)", "channel", channel,
                "reason", reason).increment();
    }

    void failed(String channel) {
        counter("caravan.sync.failures", "Sync operations that failed (logged; routing went on from local state)",
                "channel", channel).increment();
    }

    void dropped(String channel) {
        counter("caravan.sync.outbox.dropped", "Entries dropped because an outbox was full (decisions, response ids)",
                "channel", channel).increment();
    }

    void claim(String outcome) {
        counter("caravan.sync.session.claims", "Fleet-wide session claims by outcome", "outcome", outcome)
                .increment();
    }

    void snapshot(String outcome) {
        counter("caravan.sync.snapshots", "Fleet prefix index snapshots pulled from peers", "outcome", outcome)
                .increment();
    }

    void kvSnapshot(String outcome, int entries) {
        counter("caravan.sync.kv.snapshots", "KV block index snapshots a joining replica pulled from a peer",
                "outcome", outcome).increment();
        if (entries > 0) {
            counter("caravan.sync.kv.snapshot.entries", "KV block index entries taken from peers' snapshots")
                    .increment(entries);
        }
    }

    void lag(String channel, long millis) {
        lags.computeIfAbsent(channel, c -> Timer.builder("caravan.sync.lag")
                .description("From a peer's send (cluster clock) to applying it here")
                .tag("channel", c).publishPercentiles(0.5, 0.99).register(registry))
                .record(Duration.ofMillis(Math.max(0, millis)));
    }

    /** The lag timer of a channel, for tests and the ITs' report; null before the first message. */
    Timer lagTimer(String channel) {
        return lags.get(channel);
    }
}
