package dev.caravan.sim.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import dev.caravan.sim.hash.BlockHashChain;
import dev.caravan.sim.kv.KvEvent;

/**
 * The simulated scheduler of one engine: a discrete-event model driven by explicit virtual time, so it is
 * unit-testable without clocks or sleeping ({@link #advance} is told what time it is).
 *
 * <p>Life of a request: FIFO waiting queue → admitted when fewer than {@code maxRunning} requests run and the KV pool
 * can hold its prompt plus all its output tokens (head-of-line blocking, as vLLM's FCFS scheduler) → the prefill lane
 * (one prefill at a time, duration from {@link TimeModel} for the uncached tokens) → first token at prefill end →
 * one more token at every decode-grid step (multiples of the decode step; after each, the pool learns the request's
 * computed tokens, {@link KvPool#progress}) → finished: KV released, its blocks stay cached until evicted. Warm (P/D decode) requests skip the prefill lane and emit their first token on admission.
 *
 * <p>KV events produced while handling one event time are published as one batch (one scheduler step).
 * Not thread-safe: everything runs on the engine's event-loop thread.
 */
public final class EngineCore {

    private final TimeModel time;
    private final KvPool cache;
    private final BlockHashChain hasher;
    private final OutputGenerator output;
    private final int maxRunning;
    private final Consumer<List<KvEvent>> publisher;
    private final List<KvEvent> pendingEvents;
    private final ArrayDeque<SimRequest> waiting = new ArrayDeque<>();
    private final ArrayDeque<SimRequest> prefillLane = new ArrayDeque<>();
    private final List<SimRequest> decoding = new ArrayList<>();
    private long prefillEndsAt = Long.MAX_VALUE;
    private long nextTick = Long.MAX_VALUE;
    private long now;
    private int running;

    public EngineCore(TimeModel time, KvPool cache, List<KvEvent> cacheEvents, BlockHashChain hasher,
                      OutputGenerator output, int maxRunning, Consumer<List<KvEvent>> publisher) {
        if (maxRunning < 1) {
            throw new IllegalArgumentException("maxRunning must be >= 1, was " + maxRunning);
        }
        if (hasher.blockSize() != cache.blockSize()) {
            throw new IllegalArgumentException("hasher block size " + hasher.blockSize() + " != cache block size "
                    + cache.blockSize());
        }
        this.time = time;
        this.cache = cache;
        this.pendingEvents = cacheEvents;
        this.hasher = hasher;
        this.output = output;
        this.maxRunning = maxRunning;
        this.publisher = publisher;
    }

    /** Creates a request for {@code prompt} (hashing its full blocks) without submitting it. */
    public SimRequest newRequest(int[] prompt, int maxTokens, boolean warm, int index, RequestListener listener) {
        return newRequest(prompt, maxTokens, warm, index, null, listener);
    }

    /**
     * Creates a request for {@code prompt} without submitting it.
     *
     * @param cacheSalt the request's {@code cache_salt} (isolates its blocks from other salts' as vLLM does), or null
     */
    public SimRequest newRequest(int[] prompt, int maxTokens, boolean warm, int index, String cacheSalt,
                                 RequestListener listener) {
        byte[][] digests = hasher.digests(prompt, cacheSalt);
        long[] hashes = new long[digests.length];
        for (int i = 0; i < digests.length; i++) {
            hashes[i] = hasher.external(digests[i]);
        }
        SimRequest r = new SimRequest(prompt, hashes, maxTokens, warm, output.streamFor(prompt, index), listener);
        r.digests = digests;
        r.lastDigest = digests.length == 0 ? null : digests[digests.length - 1];
        r.cacheSalt = cacheSalt;
        return r;
    }

    /** Blocks a request would reserve: its prompt and every output token. */
    public int blocksNeeded(int promptTokens, int maxTokens) {
        int bs = cache.blockSize();
        return (promptTokens + maxTokens + bs - 1) / bs;
    }

    /** Blocks a request takes from an empty pool, over every KV-cache group. */
    public int poolBlocksNeeded(int promptTokens, int maxTokens) {
        return cache.admissionBlocks(promptTokens / cache.blockSize(), blocksNeeded(promptTokens, maxTokens));
    }

    /** Whether a request of this size could ever be admitted (it fits in an otherwise empty pool). */
    public boolean fits(int promptTokens, int maxTokens) {
        return poolBlocksNeeded(promptTokens, maxTokens) <= cache.capacityBlocks();
    }

    /**
     * Queues a request at virtual time {@code at} (not earlier than the last advance).
     *
     * @return the next virtual time the engine needs to be advanced at ({@link Long#MAX_VALUE} when idle)
     */
    public long submit(SimRequest r, long at) {
        if (r.state != SimRequest.State.NEW) {
            throw new IllegalStateException("request already submitted, state " + r.state);
        }
        if (!fits(r.prompt.length, r.maxTokens)) {
            throw new IllegalArgumentException("request needs " + poolBlocksNeeded(r.prompt.length, r.maxTokens)
                    + " KV blocks, the pool has " + cache.capacityBlocks());
        }
        advance(at);
        r.state = SimRequest.State.WAITING;
        waiting.addLast(r);
        admit(now);
        flushEvents();
        return nextWakeup();
    }

    /** Removes a request wherever it is (client went away); its KV is released. Idempotent. */
    public long cancel(SimRequest r, long at) {
        advance(at);
        switch (r.state) {
            case WAITING -> waiting.remove(r);
            case PREFILL -> {
                boolean head = prefillLane.peekFirst() == r;
                prefillLane.remove(r);
                if (head) {
                    startNextPrefill(now);
                }
                release(r);
            }
            case DECODING -> {
                decoding.remove(r);
                if (decoding.isEmpty()) {
                    nextTick = Long.MAX_VALUE;
                }
                release(r);
            }
            default -> {
                return nextWakeup();
            }
        }
        r.state = SimRequest.State.CANCELLED;
        r.finishedAt = now;
        admit(now);
        flushEvents();
        return nextWakeup();
    }

    /**
     * Processes every event due up to virtual time {@code to}, in time order.
     *
     * @return the next virtual time something happens ({@link Long#MAX_VALUE} when idle)
     */
    public long advance(long to) {
        while (true) {
            long t = Math.min(prefillEndsAt, nextTick);
            if (t > to) {
                break;
            }
            now = Math.max(now, t);
            if (nextTick <= prefillEndsAt) {
                tick(t);
            } else {
                completePrefill(t);
            }
            admit(t);
            flushEvents();
        }
        now = Math.max(now, to);
        return nextWakeup();
    }

    /** Clears the prefix cache if no request is in the engine (SGLang semantics); publishes AllBlocksCleared. */
    public boolean flushCache() {
        if (running > 0 || !waiting.isEmpty()) {
            return false;
        }
        boolean cleared = cache.clear();
        flushEvents();
        return cleared;
    }

    public long nextWakeup() {
        return Math.min(prefillEndsAt, nextTick);
    }

    private void admit(long t) {
        while (!waiting.isEmpty() && running < maxRunning) {
            SimRequest r = waiting.peekFirst();
            int full = r.hashes.length;
            int maxHit = r.warm ? full : (r.prompt.length - 1) / cache.blockSize();
            KvPool.Lease a = cache.allocate(r.hashes, r.digests, r.prompt, maxHit,
                    blocksNeeded(r.prompt.length, r.maxTokens), r.cacheSalt);
            if (a == null) {
                return;
            }
            waiting.pollFirst();
            running++;
            r.allocation = a;
            r.admittedAt = t;
            if (r.warm) {
                r.prefillNanos = 0;
                r.listener.onPrefilled(r);
                firstToken(r, t);
            } else {
                r.state = SimRequest.State.PREFILL;
                r.prefillNanos = time.prefillNanos(r.prompt.length - a.cachedTokens(), a.offloadedTokens());
                prefillLane.addLast(r);
                if (prefillLane.size() == 1) {
                    prefillEndsAt = t + r.prefillNanos;
                }
            }
        }
    }

    private void completePrefill(long t) {
        SimRequest r = prefillLane.pollFirst();
        startNextPrefill(t);
        r.listener.onPrefilled(r);
        firstToken(r, t);
    }

    private void startNextPrefill(long t) {
        SimRequest next = prefillLane.peekFirst();
        prefillEndsAt = next == null ? Long.MAX_VALUE : t + next.prefillNanos;
    }

    private void firstToken(SimRequest r, long t) {
        if (r.maxTokens == 0) {
            finish(r, t);
            return;
        }
        r.firstTokenAt = t;
        emit(r);
        if (r.generated == r.maxTokens) {
            finish(r, t);
            return;
        }
        r.state = SimRequest.State.DECODING;
        cache.progress(r.allocation, r.prompt.length + r.generated - 1);
        if (decoding.isEmpty()) {
            long step = time.decodeStepNanos();
            nextTick = (t / step + 1) * step;
        }
        decoding.add(r);
    }

    private void tick(long t) {
        int kept = 0;
        for (int i = 0; i < decoding.size(); i++) {
            SimRequest r = decoding.get(i);
            emit(r);
            if (r.generated == r.maxTokens) {
                finish(r, t);
            } else {
                cache.progress(r.allocation, r.prompt.length + r.generated - 1);
                decoding.set(kept++, r);
            }
        }
        decoding.subList(kept, decoding.size()).clear();
        nextTick = decoding.isEmpty() ? Long.MAX_VALUE : t + time.decodeStepNanos();
    }

    private void emit(SimRequest r) {
        int token = output.nextToken(r.stream);
        r.output[r.generated] = token;
        int index = r.generated++;
        r.listener.onToken(r, index, token);
    }

    private void finish(SimRequest r, long t) {
        release(r);
        r.state = SimRequest.State.FINISHED;
        r.finishedAt = t;
        r.listener.onFinished(r);
    }

    private void release(SimRequest r) {
        running--;
        int bs = cache.blockSize();
        int promptFull = r.prompt.length / bs;
        int allLen = r.prompt.length + r.generated;
        int allFull = allLen / bs;
        if (allFull > promptFull) {
            int[] all = Arrays.copyOf(r.prompt, allLen);
            System.arraycopy(r.output, 0, all, r.prompt.length, r.generated);
            long[] allHashes = Arrays.copyOf(r.hashes, allFull);
            byte[][] allDigests = r.digests == null ? new byte[allFull][] : Arrays.copyOf(r.digests, allFull);
            byte[] parent = r.lastDigest;
            for (int b = promptFull; b < allFull; b++) {
                parent = hasher.hashBlock(parent, all, b * bs, r.cacheSalt);
                allDigests[b] = parent;
                allHashes[b] = hasher.external(parent);
            }
            cache.release(r.allocation, allHashes, allDigests, all, promptFull, r.cacheSalt);
        } else {
            cache.release(r.allocation, r.hashes, r.digests, r.prompt, promptFull, r.cacheSalt);
        }
    }

    private void flushEvents() {
        if (!pendingEvents.isEmpty()) {
            publisher.accept(List.copyOf(pendingEvents));
            pendingEvents.clear();
        }
    }

    public int running() {
        return running;
    }

    public int waiting() {
        return waiting.size();
    }

    public KvPool cache() {
        return cache;
    }

    /** Tokens of live work, SGLang's {@code num_tokens}: running requests' prompt + generated, plus waiting prompts. */
    public long liveTokens() {
        long n = 0;
        for (SimRequest r : waiting) {
            n += r.prompt.length;
        }
        for (SimRequest r : prefillLane) {
            n += r.prompt.length;
        }
        for (SimRequest r : decoding) {
            n += r.prompt.length + r.generated;
        }
        return n;
    }

    public long now() {
        return now;
    }
}
