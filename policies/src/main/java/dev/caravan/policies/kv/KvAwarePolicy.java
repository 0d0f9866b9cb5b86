package dev.caravan.policies.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.text.Tokenizer;

/**
 * Precise KV-aware routing ({@code kv_aware}): scores workers by the blocks their engines <em>reported</em> holding
 * (the {@link KvBlockIndex}, fed by KV events), not by what the router guesses it sent them.
 *
 * <p>Per request: token ids ({@link SelectionContext#tokens()} when the gateway has them, else
 * {@code tokenizer.encode(requestText)}) → block hashes ({@link BlockHasher#hashes}, the engines' own chain) → each
 * worker's longest consecutive resident prefix → a cost, lowest wins (Dynamo's selector):
 * <pre>
 *   cost(w) = overlapWeight × uncachedPrefillBlocks(w) + activeDecodeBlocks(w)
 *   uncachedPrefillBlocks(w) = tokens / blockSize − matchedBlocks(w)
 *   activeDecodeBlocks(w)    = ROUTER: w.load() × mean blocks of routed requests
 *                              ENGINE: w.engineLoad().tokens() / blockSize (ROUTER until reported)
 * </pre>
 * Ties go to the worker with fewer resident blocks (more free cache), then to a seeded random choice. Branches:
 * {@code kv_hit} (the winner holds ≥ 1 leading block), {@code kv_miss_min_cost} (it holds none: pure load choice),
 * {@code imbalanced_min_load} and {@code no_healthy_workers}.
 *
 * <p>Imbalance guard, as cache_aware's: over the candidates' in-flight loads, when {@code max − min >
 * balanceAbsThreshold} and {@code max > min × balanceRelThreshold}, take the least-loaded healthy worker regardless of
 * cache. The cost already blends load, so the guard is a backstop for pathological hot prefixes.
 *
 * <p>Self-check: the hashes past the chosen worker's matched prefix are what its engine will compute and store; they are
 * handed to the {@link ParityTracker} (if given), which compares them with the engine's later {@code BlockStored}
 * events.
 *
 * <p>Thread-safe and non-blocking apart from a short lock on the random generator on exact ties.
 */
public final class KvAwarePolicy implements LoadBalancingPolicy {

    public static final String NAME = "kv_aware";
    public static final String BRANCH_HIT = "kv_hit";
    public static final String BRANCH_MISS = "kv_miss_min_cost";
    public static final String BRANCH_IMBALANCED = "imbalanced_min_load";
    public static final String BRANCH_NO_HEALTHY = "no_healthy_workers";

    /** Weight of each new request in the running mean of request blocks (about the last 20 requests dominate). */
    private static final double REQUEST_BLOCKS_EWMA_ALPHA = 0.05;
    private static final Logger LOG = LoggerFactory.getLogger(KvAwarePolicy.class);

    private final KvAwareConfig config;
    private final KvBlockIndex index;
    private final Tokenizer tokenizer;
    private final BlockHasher hasher;
    private final ParityTracker parity;
    private final RandomGenerator random;
    private final AtomicLong meanRequestBlocksBits;

    /**
     * @param parity the self-check to feed, or null for none
     * @param random tie-breaker; seeded in tests
     */
    public KvAwarePolicy(KvAwareConfig config, KvBlockIndex index, Tokenizer tokenizer, BlockHasher hasher,
                         ParityTracker parity, RandomGenerator random) {
        this.config = Objects.requireNonNull(config, "config");
        this.index = Objects.requireNonNull(index, "index");
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
        this.hasher = Objects.requireNonNull(hasher, "hasher");
        this.parity = parity;
        this.random = Objects.requireNonNull(random, "random");
        this.meanRequestBlocksBits = new AtomicLong(Double.doubleToLongBits(config.initialRequestBlocks()));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean needsRequestText() {
        return true;
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = new ArrayList<>(candidates.size());
        for (Worker w : candidates) {
            if (w.isHealthy()) {
                healthy.add(w);
            }
        }
        if (healthy.isEmpty()) {
            return Decision.none(NAME, BRANCH_NO_HEALTHY);
        }
        int[] tokens = context.tokens() != null ? context.tokens() : tokenizer.encode(context.requestText());
        long[] hashes = hasher.hashes(tokens);
        double requestBlocks = (double) tokens.length / hasher.blockSize();
        double meanBlocks = updateMeanRequestBlocks(requestBlocks);
        PrefixMatches matches = index.longestPrefixes(context.model(), hashes);

        Decision decision;
        if (imbalanced(candidates)) {
            decision = Decision.of(leastLoaded(healthy), NAME, BRANCH_IMBALANCED);
        } else {
            double[] costs = new double[healthy.size()];
            for (int i = 0; i < costs.length; i++) {
                Worker w = healthy.get(i);
                double uncached = Math.max(0, requestBlocks - matches.matched(w.id()));
                costs[i] = config.overlapWeight() * uncached + decodeBlocks(w, meanBlocks);
            }
            Worker winner = lowestCost(healthy, costs);
            decision = Decision.of(winner, NAME, matches.matched(winner.id()) > 0 ? BRANCH_HIT : BRANCH_MISS);
            if (LOG.isDebugEnabled()) {
                LOG.debug("kv_aware: {} blocks, matched {}, costs {} -> {} ({})", hashes.length, matches.matched(),
                        Arrays.toString(costs), winner.id(), decision.branch());
            }
        }
        if (parity != null) {
            int held = matches.matched(decision.worker().id());
            parity.expect(decision.worker().id(), Arrays.copyOfRange(hashes, held, hashes.length));
        }
        return decision;
    }

    /** The blocks {@code worker} is busy decoding, per {@link KvAwareConfig#decodeLoadSource()}. */
    private double decodeBlocks(Worker worker, double meanRequestBlocks) {
        if (config.decodeLoadSource() == KvAwareConfig.DecodeLoadSource.ENGINE) {
            EngineLoad load = worker.engineLoad();
            if (load != null && load.hasTokens()) {
                return (double) load.tokens() / hasher.blockSize();
            }
        }
        return worker.load() * meanRequestBlocks;
    }

    private boolean imbalanced(List<Worker> candidates) {
        int max = Integer.MIN_VALUE;
        int min = Integer.MAX_VALUE;
        for (Worker w : candidates) {
            max = Math.max(max, w.load());
            min = Math.min(min, w.load());
        }
        return max - min > config.balanceAbsThreshold() && max > min * config.balanceRelThreshold();
    }

    private Worker leastLoaded(List<Worker> healthy) {
        double[] loads = new double[healthy.size()];
        for (int i = 0; i < loads.length; i++) {
            loads[i] = healthy.get(i).load();
        }
        return lowestCost(healthy, loads);
    }

    /** Lowest cost; ties by fewer resident blocks, then uniformly at random. */
    private Worker lowestCost(List<Worker> workers, double[] costs) {
        List<Worker> best = new ArrayList<>(2);
        double bestCost = Double.POSITIVE_INFINITY;
        int bestResident = Integer.MAX_VALUE;
        for (int i = 0; i < costs.length; i++) {
            Worker w = workers.get(i);
            int resident = index.residentBlocks(w.id());
            int cmp = costs[i] != bestCost ? Double.compare(costs[i], bestCost) : Integer.compare(resident, bestResident);
            if (cmp < 0) {
                best.clear();
                bestCost = costs[i];
                bestResident = resident;
            }
            if (cmp <= 0) {
                best.add(w);
            }
        }
        if (best.size() == 1) {
            return best.get(0);
        }
        synchronized (random) {
            return best.get(random.nextInt(best.size()));
        }
    }

    private double updateMeanRequestBlocks(double requestBlocks) {
        while (true) {
            long bits = meanRequestBlocksBits.get();
            double mean = Double.longBitsToDouble(bits);
            double next = mean + REQUEST_BLOCKS_EWMA_ALPHA * (requestBlocks - mean);
            if (meanRequestBlocksBits.compareAndSet(bits, Double.doubleToLongBits(next))) {
                return mean;
            }
        }
    }

    /** The running mean of routed requests' blocks the ROUTER decode estimate multiplies in-flight load by. */
    public double meanRequestBlocks() {
        return Double.longBitsToDouble(meanRequestBlocksBits.get());
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        if (parity != null) {
            parity.removeWorker(worker.id());
        }
    }

    /** Forgets the running request-size estimate; the index is ground truth owned by the event pipeline and stays. */
    @Override
    public void reset() {
        meanRequestBlocksBits.set(Double.doubleToLongBits(config.initialRequestBlocks()));
    }
}
