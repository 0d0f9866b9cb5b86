package dev.caravan.processors.kv;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvEventSink;

/**
 * Turns each worker's decoded KV-event messages into index updates, keeping the stream whole: per-publisher sequence
 * tracking, replay of gaps, restart detection. The Camel stages ({@link DecodeKvBatchProcessor},
 * {@link ApplyKvEventsProcessor}) only adapt exchanges to it.
 *
 * <p>Per message of worker W, in order:
 * <ol>
 *   <li>{@link SequenceTracker} classifies its sequence for publisher (topic, DP rank);</li>
 *   <li>DUPLICATE: ignored. RESTART (sequence went backwards): the engine restarted with an empty cache, so every
 *       sink is told {@code workerCleared(W)} before the batch is applied;</li>
 *   <li>GAP: the missing batches are requested from W's replay endpoint (offset by DP rank) and those strictly between
 *       the previous and the current sequence are applied first, in order; what cannot be recovered is counted and
 *       logged (entries may then be stale until evicted, re-stored or cleared: routing to a stale block makes the engine
 *       store it again, so staleness heals with traffic);</li>
 *   <li>the batch's GPU events go to the sinks: {@code BlockStored} → {@code blocksStored}, {@code BlockRemoved} →
 *       {@code blocksRemoved}, {@code AllBlocksCleared} → {@code workerCleared}. Other media are counted, not
 *       indexed.</li>
 * </ol>
 * The replay runs synchronously on the calling thread (the worker's consumer thread), so live messages wait in the SUB
 * socket's queue and ordering holds. Thread-safety: calls for one worker are serialised; workers are independent.
 */
public final class KvEventIngestor implements AutoCloseable {

    /** Default longest wait for a whole replay. */
    public static final Duration DEFAULT_REPLAY_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(KvEventIngestor.class);

    private final List<KvEventSink> sinks;
    private final Duration replayTimeout;
    private final LongSupplier nanoClock;
    private final ToLongFunction<Worker> served;
    private final ZContext replayContext = new ZContext(1);
    private final Map<String, WorkerState> workers = new ConcurrentHashMap<>();

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
     * As {@link #KvEventIngestor(List, Duration, LongSupplier, ToLongFunction)} with {@link Worker#processed()} as the
     * measure of traffic for the silence check.
     */
    public KvEventIngestor(List<KvEventSink> sinks, Duration replayTimeout, LongSupplier nanoClock) {
        this(sinks, replayTimeout, nanoClock, Worker::processed);
    }

    /**
     * @param sinks         receivers of the worker-level events (the block index, the parity tracker, ...)
     * @param replayTimeout longest wait for one replay
     * @param nanoClock     monotonic clock for event ages and replay deadlines
     * @param served        requests routed to a worker so far (monotonic); the silence check compares it with its value
     *                      at the worker's last event
     */
    public KvEventIngestor(List<KvEventSink> sinks, Duration replayTimeout, LongSupplier nanoClock,
                           ToLongFunction<Worker> served) {
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
        workers.put(worker.id(), new WorkerState(worker, endpoints, nanoClock.getAsLong(), served.applyAsLong(worker)));
    }

    /** Stops tracking a worker whose event route was removed. Index cleanup is the index owner's call. */
    public void unregister(String workerId) {
        workers.remove(workerId);
    }

    /** Applies one live message of {@code workerId}. */
    public void onMessage(String workerId, KvEventMessage message) {
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
            int rank = message.batch().rank();
            SequenceTracker.Verdict v = st.tracker.observe(message.topic(), rank, message.sequence());
            switch (v.kind()) {
                case DUPLICATE -> {
                    st.stats.duplicates.increment();
                    return;
                }
                case RESTART -> {
                    st.stats.restarts.increment();
                    LOG.info("KV publisher of {} (topic '{}', rank {}) restarted: sequence {} after {}; dropping its"
                            + " index entries", workerId, message.topic(), rank, Long.toUnsignedString(v.sequence()),
                            Long.toUnsignedString(v.previous()));
                    for (KvEventSink sink : sinks) {
                        sink.workerCleared(workerId);
                    }
                }
                case GAP -> heal(st, v, rank);
                default -> {
                }
            }
            apply(st, message.batch());
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

    private void heal(WorkerState st, SequenceTracker.Verdict gap, int rank) {
        KvWorkerStats stats = st.stats;
        stats.gaps.increment();
        long missing = gap.missing();
        String endpoint = st.endpoints.replay();
        if (endpoint == null) {
            stats.replayFailures.increment();
            stats.unrecoveredBatches.add(missing);
            LOG.warn("KV events of {}: {} batches lost after sequence {} and no replay endpoint is configured",
                    st.worker.id(), missing, Long.toUnsignedString(gap.previous()));
            return;
        }
        stats.replays.increment();
        long recovered = 0;
        try {
            ReplayClient client = new ReplayClient(replayContext, ReplayEndpoints.forRank(endpoint, rank), replayTimeout,
                    nanoClock);
            ReplayClient.Result result = client.replayFrom(gap.previous() + 1);
            for (ReplayClient.Replayed r : result.batches()) {
                boolean inGap = Long.compareUnsigned(r.sequence(), gap.previous()) > 0
                        && Long.compareUnsigned(r.sequence(), gap.sequence()) < 0;
                if (!inGap) {
                    continue; // at or after the live message: the live stream delivers it
                }
                try {
                    apply(st, KvEventDecoder.decodeBatch(r.payload()));
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
        if (recovered < missing) {
            stats.unrecoveredBatches.add(missing - recovered);
            LOG.warn("KV events of {}: recovered {} of {} missing batches by replay", st.worker.id(), recovered, missing);
        } else {
            LOG.info("KV events of {}: replayed {} missing batches", st.worker.id(), recovered);
        }
    }

    private void apply(WorkerState st, KvEventBatch batch) {
        String id = st.worker.id();
        String model = st.worker.modelId();
        KvWorkerStats stats = st.stats;
        stats.batches.increment();
        stats.skippedEvents.add(batch.skippedEvents());
        for (KvEvent event : batch.events()) {
            if (!event.isGpu()) {
                stats.nonGpuEvents.increment();
                continue;
            }
            if (event instanceof KvEvent.BlockStored s) {
                stats.blockStoredEvents.increment();
                for (KvEventSink sink : sinks) {
                    sink.blocksStored(id, model, s.blockHashes());
                }
            } else if (event instanceof KvEvent.BlockRemoved r) {
                stats.blockRemovedEvents.increment();
                for (KvEventSink sink : sinks) {
                    sink.blocksRemoved(id, model, r.blockHashes());
                }
            } else {
                stats.allBlocksClearedEvents.increment();
                for (KvEventSink sink : sinks) {
                    sink.workerCleared(id);
                }
            }
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
