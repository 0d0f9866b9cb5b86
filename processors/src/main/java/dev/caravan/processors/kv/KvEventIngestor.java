package dev.caravan.processors.kv;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;
import dev.caravan.policies.kv.KvEventSink;
import dev.caravan.policies.kv.KvTier;

/**
 * Turns each worker's decoded KV-event messages into index updates, keeping the stream whole: per-publisher sequence
 * tracking, replay of gaps and of the history a late subscriber missed, restart detection. The Camel stages
 * ({@link DecodeKvBatchProcessor}, {@link ApplyKvEventsProcessor}) only adapt exchanges to it.
 *
 * <p>Per message of worker W from engine rank R (the batch's {@code data_parallel_rank}, else the rank the route
 * subscribed to), in order:
 * <ol>
 *   <li>{@link SequenceTracker} classifies its sequence for publisher (topic, R);</li>
 *   <li>FIRST (the publisher's first message since we subscribed) with sequence &gt; 0 and a replay endpoint: the
 *       batches the engine still buffers before it are replayed and applied first — a gateway that starts (or a
 *       replica that joins) after the engines learns what they already hold. Blocks whose ancestry the buffer no
 *       longer reaches are orphans (counted by the index);</li>
 *   <li>DUPLICATE: ignored. RESTART (sequence went backwards): rank R restarted with an empty cache, so its blocks are
 *       dropped ({@code clearRank}) before the batch is applied;</li>
 *   <li>GAP: the missing batches are requested from W's replay endpoint offset by R, and those strictly between the
 *       previous and the current sequence are applied first, in order; what cannot be recovered is counted and
 *       logged (entries may then be stale until evicted, re-stored or cleared: routing to a stale block makes the
 *       engine store it again, so staleness heals with traffic);</li>
 *   <li>each event goes to the {@link KvBlockIndex} ({@code apply}), which resolves it into Caravan's block keys;
 *       the other sinks (parity self-check, tree calibration) hear the resolved GPU stores and removals, and
 *       {@code AllBlocksCleared} as {@code rankCleared(W, R)}.</li>
 * </ol>
 * Replays run synchronously on the calling thread (the subscription's consumer thread), so live messages wait in the SUB
 * socket's queue and ordering holds. Thread-safety: calls for one worker are serialised; workers are independent.
 */
public final class KvEventIngestor implements AutoCloseable {

    /** Default longest wait for a whole replay. */
    public static final Duration DEFAULT_REPLAY_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(KvEventIngestor.class);

    private final KvBlockIndex index;
    private final List<KvEventSink> sinks;
    private final Duration replayTimeout;
    private final LongSupplier nanoClock;
    private final ToLongFunction<Worker> served;
    private final ZContext replayContext = new ZContext(1);
    private final Map<String, WorkerState> workers = new ConcurrentHashMap<>();
    /** Peer snapshots of workers not registered here yet, by {@link #snapshotKey}. */
    private final Map<String, WorkerSnapshot> pendingSnapshots = new ConcurrentHashMap<>();

    private static final class WorkerState {
        final Worker worker;
        final KvEndpoints endpoints;
        final SequenceTracker tracker = new SequenceTracker();
        final KvWorkerStats stats;
        volatile boolean silent;

        WorkerState(Worker worker, KvEndpoints endpoints, long now, long served) {
            this.worker = worker;
            this.endpoints = endpoints;
            this.stats = new KvWorkerStats(now, served);
        }
    }

    /**
     * As {@link #KvEventIngestor(KvBlockIndex, List, Duration, LongSupplier, ToLongFunction)} with
     * {@link Worker#processed()} as the measure of traffic for the silence check.
     */
    public KvEventIngestor(KvBlockIndex index, List<KvEventSink> sinks, Duration replayTimeout, LongSupplier nanoClock) {
        this(index, sinks, replayTimeout, nanoClock, Worker::processed);
    }

    /**
     * @param index         the block index every event is applied to first
     * @param sinks         hear the index's resolution (the parity tracker, the tree calibration, ...)
     * @param replayTimeout longest wait for one replay
     * @param nanoClock     monotonic clock for event ages and replay deadlines
     * @param served        requests routed to a worker so far (monotonic); the silence check compares it with its value
     *                      at the worker's last event
     */
    public KvEventIngestor(KvBlockIndex index, List<KvEventSink> sinks, Duration replayTimeout, LongSupplier nanoClock,
                           ToLongFunction<Worker> served) {
        this.index = index;
        this.sinks = List.copyOf(sinks);
        this.replayTimeout = replayTimeout;
        this.nanoClock = nanoClock;
        this.served = served;
    }

    /** Starts tracking a worker with the endpoints it was registered with. */
    public void register(Worker worker) {
        register(worker, new KvEndpoints(worker.kvEventsEndpoint(), worker.kvReplayEndpoint()));
    }

    /** Starts tracking a worker whose event route is being created; gaps are replayed from {@code endpoints.replay()}. */
    public void register(Worker worker, KvEndpoints endpoints) {
        WorkerState st = new WorkerState(worker, endpoints, nanoClock.getAsLong(), served.applyAsLong(worker));
        workers.put(worker.id(), st);
        WorkerSnapshot pending = pendingSnapshots.remove(snapshotKey(worker));
        if (pending != null) {
            restore(st, pending);
        }
    }

    /** Stops tracking a worker whose event route was removed. Index cleanup is the index owner's call. */
    public void unregister(String workerId) {
        workers.remove(workerId);
    }

    /** Applies one live message of {@code workerId} received on its rank-0 subscription. */
    public void onMessage(String workerId, KvEventMessage message) {
        onMessage(workerId, 0, message);
    }

    /**
     * Applies one live message of {@code workerId}.
     *
     * @param subscribedRank the DP rank whose endpoint the message came from (used when the batch names none)
     */
    public void onMessage(String workerId, int subscribedRank, KvEventMessage message) {
        WorkerState st = workers.get(workerId);
        if (st == null) {
            LOG.warn("KV events for unregistered worker {} ignored", workerId);
            return;
        }
        synchronized (st) {
            st.stats.lastEventNanos = nanoClock.getAsLong();
            st.stats.processedAtLastEvent = served.applyAsLong(st.worker);
            if (st.silent) {
                st.silent = false;
                LOG.info("KV publisher of worker {} ({}) is publishing again", workerId, st.endpoints.events());
            }
            Integer batchRank = message.batch().dataParallelRank();
            int rank = batchRank != null ? batchRank : subscribedRank;
            SequenceTracker.Verdict v = st.tracker.observe(message.topic(), rank, message.sequence());
            switch (v.kind()) {
                case DUPLICATE -> {
                    st.stats.duplicates.increment();
                    return;
                }
                case RESTART -> {
                    st.stats.restarts.increment();
                    int dropped = index.clearRank(workerId, rank);
                    LOG.info("KV publisher of {} (topic '{}', rank {}) restarted: sequence {} after {}; dropped its {}"
                            + " index entries", workerId, message.topic(), rank, Long.toUnsignedString(v.sequence()),
                            Long.toUnsignedString(v.previous()), dropped);
                    for (KvEventSink sink : sinks) {
                        sink.rankCleared(workerId, rank);
                    }
                }
                case GAP -> heal(st, v, rank, v.previous() + 1, false);
                case FIRST -> {
                    if (v.sequence() != 0) {
                        heal(st, v, rank, 0, true);
                    }
                }
                default -> {
                }
            }
            apply(st, rank, message.batch());
        }
    }

    /** Counts a message of {@code workerId} that could not be decoded (it is skipped). */
    public void onDecodeError(String workerId, KvDecodeException error) {
        WorkerState st = workers.get(workerId);
        LOG.warn("Undecodable KV-event message from {} skipped ({}): {}", workerId, error.reason(), error.getMessage());
        if (st != null) {
            st.stats.decodeError(error.reason());
        }
    }

    /**
     * Replays the batches before the live one: those after the previous sequence (a gap), or everything the engine
     * still buffers (a late join, {@code from} 0).
     */
    private void heal(WorkerState st, SequenceTracker.Verdict v, int rank, long from, boolean join) {
        KvWorkerStats stats = st.stats;
        String endpoint = st.endpoints.replay();
        long missing = join ? 0 : v.missing();
        if (!join) {
            stats.gaps.increment();
        }
        if (endpoint == null) {
            if (!join) {
                stats.replayFailures.increment();
                stats.unrecoveredBatches.add(missing);
                LOG.warn("KV events of {}: {} batches lost after sequence {} and no replay endpoint is configured",
                        st.worker.id(), missing, Long.toUnsignedString(v.previous()));
            }
            return;
        }
        stats.replays.increment();
        long recovered = 0;
        try {
            String rankEndpoint = ReplayEndpoints.forRank(endpoint, rank);
            ReplayClient client = new ReplayClient(replayContext, rankEndpoint, replayTimeout, nanoClock);
            ReplayClient.Result result = client.replayFrom(from);
            for (ReplayClient.Replayed r : result.batches()) {
                boolean before = Long.compareUnsigned(r.sequence(), from) >= 0
                        && Long.compareUnsigned(r.sequence(), v.sequence()) < 0;
                if (!before) {
                    continue; // at or after the live message: the live stream delivers it
                }
                try {
                    apply(st, rank, KvEventDecoder.decodeBatch(r.payload()));
                    stats.replayedBatches.increment();
                    recovered++;
                } catch (KvDecodeException e) {
                    onDecodeError(st.worker.id(), e);
                }
            }
            if (!result.complete()) {
                stats.replayFailures.increment();
            }
        } catch (RuntimeException e) {
            stats.replayFailures.increment();
            LOG.warn("KV replay from {} for {} failed: {}", endpoint, st.worker.id(), e.toString());
        }
        if (join) {
            LOG.info("KV events of {} rank {}: joined at sequence {}, replayed {} earlier batches", st.worker.id(), rank,
                    Long.toUnsignedString(v.sequence()), recovered);
        } else if (recovered < missing) {
            stats.unrecoveredBatches.add(missing - recovered);
            LOG.warn("KV events of {}: recovered {} of {} missing batches by replay", st.worker.id(), recovered, missing);
        } else {
            LOG.info("KV events of {}: replayed {} missing batches", st.worker.id(), recovered);
        }
    }

    private void apply(WorkerState st, int rank, KvEventBatch batch) {
        String id = st.worker.id();
        String model = st.worker.modelId();
        KvWorkerStats stats = st.stats;
        stats.batches.increment();
        stats.skippedEvents.add(batch.skippedEvents());
        for (KvEvent event : batch.events()) {
            KvBlockIndex.Applied applied = index.apply(id, rank, event);
            stats.orphanBlocks.add(applied.orphans());
            if (event instanceof KvEvent.BlockStored s) {
                stats.blockStoredEvents.increment();
                if (KvTier.of(s.medium()) != KvTier.GPU) {
                    stats.nonGpuEvents.increment();
                }
                if (applied.stored().length > 0) {
                    for (KvEventSink sink : sinks) {
                        sink.blocksStored(id, model, applied.stored());
                    }
                }
            } else if (event instanceof KvEvent.BlockRemoved r) {
                stats.blockRemovedEvents.increment();
                if (KvTier.of(r.medium()) != KvTier.GPU) {
                    stats.nonGpuEvents.increment();
                }
                if (applied.removed().length > 0) {
                    for (KvEventSink sink : sinks) {
                        sink.blocksRemoved(id, model, applied.removed());
                    }
                }
            } else {
                stats.allBlocksClearedEvents.increment();
                for (KvEventSink sink : sinks) {
                    sink.rankCleared(id, rank);
                }
            }
        }
    }

    /**
     * What this replica knows of one engine, as a peer hands it to a replica that joins (replica sync): the worker's
     * identity ({@link #snapshotKey}), each publisher's last sequence, and its index entries as of that sequence.
     */
    public record WorkerSnapshot(String key, List<SequenceTracker.Position> positions,
                                 List<KvBlockIndex.RankState> ranks) {
    }

    /** A worker's identity across replicas, whose worker ids differ: its role and URL. */
    public static String snapshotKey(Worker worker) {
        return worker.role().wireName() + " " + worker.url();
    }

    /** Every registered worker's part of the index with its publishers' sequences, each read under the worker's lock. */
    public List<WorkerSnapshot> exportSnapshot() {
        List<WorkerSnapshot> out = new ArrayList<>();
        for (WorkerState st : workers.values()) {
            synchronized (st) {
                out.add(new WorkerSnapshot(snapshotKey(st.worker), st.tracker.positions(), index.export(st.worker.id())));
            }
        }
        return out;
    }

    /**
     * Takes a peer's snapshot: each registered worker's entries are added to the index (what its live events already
     * said wins) and its publishers' sequences become the baseline, so the first live message replays only the batches
     * since the snapshot (a GAP) instead of everything the engine buffers. Workers not registered yet (discovery finds
     * them later) take theirs when they register. Returns the entries added now.
     */
    public int restoreSnapshot(List<WorkerSnapshot> snapshots) {
        Map<String, WorkerState> byKey = new HashMap<>();
        workers.values().forEach(st -> byKey.put(snapshotKey(st.worker), st));
        int added = 0;
        for (WorkerSnapshot snap : snapshots) {
            WorkerState st = byKey.get(snap.key());
            if (st == null) {
                pendingSnapshots.put(snap.key(), snap);
            } else {
                added += restore(st, snap);
            }
        }
        return added;
    }

    private int restore(WorkerState st, WorkerSnapshot snap) {
        synchronized (st) {
            int added = index.restore(st.worker.id(), snap.ranks());
            snap.positions().forEach(st.tracker::seed);
            LOG.info("KV index of {}: {} entries from a peer replica's snapshot, publishers at {}", st.worker.id(),
                    added, snap.positions());
            return added;
        }
    }

    /** The worker's counters, or null when it is not registered. */
    public KvWorkerStats stats(String workerId) {
        WorkerState st = workers.get(workerId);
        return st == null ? null : st.stats;
    }

    /**
     * Workers whose publisher has said nothing for longer than {@code maxSilence} although the gateway kept routing
     * requests to them: a serving engine always publishes, so its events are not reaching us (wrong endpoint, firewall,
     * engine started without {@code --kv-events-config}). Logs a warning when a worker becomes silent.
     */
    public List<Worker> silentWorkers(Duration maxSilence) {
        long now = nanoClock.getAsLong();
        List<Worker> out = new ArrayList<>();
        for (WorkerState st : workers.values()) {
            synchronized (st) {
                long routed = served.applyAsLong(st.worker) - st.stats.processedAtLastEvent;
                boolean silent = st.stats.lastEventAgeNanos(now) > maxSilence.toNanos() && routed > 0;
                if (silent && !st.silent) {
                    LOG.warn("Worker {} ({}) was sent {} requests but published no KV event for {} s: check its"
                            + " --kv-events-config and the endpoint {}", st.worker.id(), st.worker.url(), routed,
                            st.stats.lastEventAgeNanos(now) / 1_000_000_000L, st.endpoints.events());
                }
                st.silent = silent;
                if (silent) {
                    out.add(st.worker);
                }
            }
        }
        return out;
    }

    /** True while the silence check last found the worker's publisher silent (until its next event). */
    public boolean isSilent(String workerId) {
        WorkerState st = workers.get(workerId);
        return st != null && st.silent;
    }

    /** Closes the replay sockets' context. */
    @Override
    public void close() {
        replayContext.close();
    }
}
