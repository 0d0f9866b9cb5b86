package dev.caravan.processors.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.kv.KvDecodeException.Reason;

/**
 * The KV-event pipeline's meters on the gateway's Micrometer registry (Prometheus names; {@code worker} is the worker
 * URL, as in the gateway's other per-worker meters):
 * <ul>
 *   <li>per worker, from {@link KvWorkerStats}: {@code caravan_kv_events_total{worker,type}} (BlockStored,
 *       BlockRemoved, AllBlocksCleared, non_gpu, skipped), {@code caravan_kv_batches_total},
 *       {@code caravan_kv_gaps_total}, {@code caravan_kv_replays_total}, {@code caravan_kv_replayed_batches_total},
 *       {@code caravan_kv_replay_failures_total}, {@code caravan_kv_unrecovered_batches_total},
 *       {@code caravan_kv_restarts_total}, {@code caravan_kv_decode_errors_total{worker,reason}},
 *       {@code caravan_kv_last_event_age_seconds}, {@code caravan_kv_publisher_silent} (1 while the silence check finds
 *       the publisher silent), {@code caravan_kv_index_blocks} (resident blocks in the index),
 *       {@code caravan_kv_tree_evicted_chars_total} and {@code caravan_kv_tree_budget_chars} (tree calibration);</li>
 *   <li>global: {@code caravan_kv_parity_agreement} (recent share of predicted blocks the engines reported stored; NaN
 *       before the first resolved prediction), {@code caravan_kv_parity_predictions_total{result=matched|missed}},
 *       {@code caravan_kv_parity_pending}, {@code caravan_kv_index_dropped_blocks_total},
 *       {@code caravan_kv_index_orphan_blocks_total}, {@code caravan_kv_index_unknown_removals_total},
 *       {@code caravan_kv_index_keys}.</li>
 * </ul>
 * Per-worker meters are bound when the worker's route is created and removed when it leaves. Thread-safe.
 */
public final class KvMetrics {

    private static final double NANOS_PER_SECOND = 1e9;

    private final MeterRegistry registry;
    private final KvEventIngestor ingestor;
    private final KvBlockIndex index;
    private final TreeCalibrator calibrator;
    private final LongSupplier nanoClock;
    private final Map<String, List<Meter>> byWorker = new ConcurrentHashMap<>();

    /**
     * @param parity     the self-check, or null when no policy predicts
     * @param calibrator the tree calibration, or null when it is off
     */
    public KvMetrics(MeterRegistry registry, KvEventIngestor ingestor, KvBlockIndex index, ParityTracker parity,
                     TreeCalibrator calibrator, LongSupplier nanoClock) {
        this.registry = registry;
        this.ingestor = ingestor;
        this.index = index;
        this.calibrator = calibrator;
        this.nanoClock = nanoClock;
        FunctionCounter.builder("caravan.kv.index.dropped.blocks", index, KvBlockIndex::droppedBlocks)
                .description("Blocks dropped from the KV block index because an engine rank exceeded its bound")
                .register(registry);
        FunctionCounter.builder("caravan.kv.index.orphan.blocks", index, KvBlockIndex::orphanBlocks)
                .description("Stored blocks dropped because their parent was never reported (late join, short replay)")
                .register(registry);
        FunctionCounter.builder("caravan.kv.index.unknown.removals", index, KvBlockIndex::unknownRemovals)
                .description("BlockRemoved of blocks the index never saw stored (ignored)")
                .register(registry);
        Gauge.builder("caravan.kv.index.keys", index, KvBlockIndex::distinctBlocks)
                .description("Distinct block keys some engine rank holds").register(registry);
        if (parity != null) {
            Gauge.builder("caravan.kv.parity.agreement", parity, p -> p.snapshot().recentAgreement())
                    .description("Share of the blocks kv_aware predicted that the engines then reported stored"
                            + " (recent window)").register(registry);
            Gauge.builder("caravan.kv.parity.pending", parity, p -> p.snapshot().pending())
                    .description("Predicted blocks still waiting for the engine's BlockStored").register(registry);
            FunctionCounter.builder("caravan.kv.parity.predictions", parity, p -> p.snapshot().matched())
                    .tag("result", "matched").description("Predicted blocks resolved by the self-check")
                    .register(registry);
            FunctionCounter.builder("caravan.kv.parity.predictions", parity, p -> p.snapshot().missed())
                    .tag("result", "missed").description("Predicted blocks resolved by the self-check")
                    .register(registry);
        }
    }

    /** Binds the worker's meters; its ingestor registration must exist. */
    public void bind(Worker worker) {
        KvWorkerStats stats = ingestor.stats(worker.id());
        if (stats == null) {
            return;
        }
        unbind(worker.id()); // a re-registration: Micrometer would hand back the old meters bound to the old stats
        Tags tags = Tags.of("worker", worker.url());
        List<Meter> meters = new ArrayList<>();
        counter(meters, "caravan.kv.events", tags.and("type", "BlockStored"), stats, KvWorkerStats::blockStoredEvents,
                "KV events applied, by type");
        counter(meters, "caravan.kv.events", tags.and("type", "BlockRemoved"), stats,
                KvWorkerStats::blockRemovedEvents, "KV events applied, by type");
        counter(meters, "caravan.kv.events", tags.and("type", "AllBlocksCleared"), stats,
                KvWorkerStats::allBlocksClearedEvents, "KV events applied, by type");
        counter(meters, "caravan.kv.events", tags.and("type", "non_gpu"), stats, KvWorkerStats::nonGpuEvents,
                "KV events applied, by type");
        counter(meters, "caravan.kv.events", tags.and("type", "skipped"), stats, KvWorkerStats::skippedEvents,
                "KV events applied, by type");
        counter(meters, "caravan.kv.batches", tags, stats, KvWorkerStats::batches, "KV-event batches applied");
        counter(meters, "caravan.kv.gaps", tags, stats, KvWorkerStats::gaps, "KV-event sequence gaps detected");
        counter(meters, "caravan.kv.replays", tags, stats, KvWorkerStats::replays, "KV-event replay requests sent");
        counter(meters, "caravan.kv.replayed.batches", tags, stats, KvWorkerStats::replayedBatches,
                "Missing KV-event batches recovered by replay");
        counter(meters, "caravan.kv.replay.failures", tags, stats, KvWorkerStats::replayFailures,
                "KV-event replays that failed, timed out or had no endpoint");
        counter(meters, "caravan.kv.unrecovered.batches", tags, stats, KvWorkerStats::unrecoveredBatches,
                "Missing KV-event batches never recovered");
        counter(meters, "caravan.kv.restarts", tags, stats, KvWorkerStats::restarts,
                "KV publisher restarts detected (the worker's index entries were dropped)");
        for (Reason r : Reason.values()) {
            counter(meters, "caravan.kv.decode.errors", tags.and("reason", r.name().toLowerCase(Locale.ROOT)), stats,
                    s -> s.decodeErrors(r), "Undecodable KV-event messages skipped");
        }
        meters.add(Gauge.builder("caravan.kv.last.event.age", stats,
                        s -> s.lastEventAgeNanos(nanoClock.getAsLong()) / NANOS_PER_SECOND)
                .baseUnit("seconds").tags(tags).description("Time since the worker's last KV-event message")
                .register(registry));
        meters.add(Gauge.builder("caravan.kv.publisher.silent", ingestor, i -> i.isSilent(worker.id()) ? 1 : 0)
                .tags(tags).description("1 while the worker serves requests but its KV publisher is silent")
                .register(registry));
        meters.add(Gauge.builder("caravan.kv.index.blocks", index, i -> i.residentBlocks(worker.id()))
                .tags(tags).description("Blocks the worker holds according to the KV block index").register(registry));
        if (calibrator != null) {
            counter(meters, "caravan.kv.tree.evicted.chars", tags, calibrator, c -> c.evictedChars(worker.id()),
                    "Characters evicted from the worker's cache_aware tree on its engine's KV events");
            meters.add(Gauge.builder("caravan.kv.tree.budget.chars", calibrator, c -> c.budget(worker))
                    .tags(tags).description("The worker's cache_aware tree budget (-1: its policy keeps no tree)")
                    .register(registry));
        }
        byWorker.put(worker.id(), meters);
    }

    /** Removes the worker's meters. */
    public void unbind(String workerId) {
        List<Meter> meters = byWorker.remove(workerId);
        if (meters != null) {
            meters.forEach(registry::remove);
        }
    }

    private <T> void counter(List<Meter> out, String name, Tags tags, T source, ToDoubleFunction<T> value,
                             String description) {
        out.add(FunctionCounter.builder(name, source, value).tags(tags).description(description).register(registry));
    }
}
