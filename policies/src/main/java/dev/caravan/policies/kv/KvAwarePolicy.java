package dev.caravan.policies.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.CacheScope;
import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PrefixHoldings;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.text.PromptTokens;
import dev.caravan.policies.text.Tokenizer;

/**
 * Precise KV-aware routing ({@code kv_aware}): scores each engine rank by the blocks its engine <em>reported</em>
 * holding (the {@link KvBlockIndex}, fed by KV events) and by the blocks of the requests in flight on it, in Dynamo's
 * units (docs/design/kv-index.md).
 *
 * <p>Per request: token ids ({@link SelectionContext#tokens()} when the gateway has them — the engine's own prompt
 * tokens, docs/tokens.md — else {@code tokenizer.encode(requestText)}) → block keys ({@link BlockKeys}, chained from the root of the request's LoRA
 * adapter and {@code cache_salt}, at each worker's block size) → per candidate (worker, rank), its tier-weighted
 * longest resident prefix → a cost, lowest wins:
 * <pre>
 *   cost(w, r) = overlapWeight × prefillBlocks(w, r) + decodeBlocks(w, r)
 *   prefillBlocks(w, r) = request tokens / blockSize − weighted matched blocks of (w, r)
 *   decodeBlocks(w, r)  = ROUTER: distinct blocks of the requests in flight on (w, r) ∪ this request's blocks, + 1 per
 *                                 request for its partial tail and decode tokens (Dynamo's potential blocks), + with
 *                                 replica sync the other replicas' reported active blocks on w ÷ its ranks
 *                         ENGINE: w's reported token load ÷ blockSize + this request's blocks (ROUTER until reported)
 * </pre>
 * Blocks of engines whose block size differs from {@code kv-block-size} are converted to that unit, so a mixed fleet
 * (SGLang's 1-token pages beside vLLM's 16-token blocks) compares costs in tokens.
 * With {@code --kv-discount-shared-prefix} (default on) the weighted matched blocks count only beyond the request's
 * shared branch point ({@link SharedPrefixes}, over the chain at {@code kv-block-size}, N = the candidate ranks): a
 * prefix that at least 1/N of the routed requests pass through and go on from in more than one way (a hot tenant's
 * prompt, a preamble every conversation shares) is worth nothing, so such requests choose by the decode term, while a
 * conversation keeps its rank through what it alone holds beyond that point.
 * Temperature 0 (default): lowest cost, ties by fewer resident blocks, then a seeded random choice. Temperature T &gt; 0:
 * a candidate is drawn with probability ∝ {@code exp(−(cost − min) / ((max − min) × T))}, Dynamo's softmax.
 *
 * <p>Imbalance guard, as cache_aware's: when the candidates' in-flight loads have {@code max − min >
 * balanceAbsThreshold} and {@code max > min × balanceRelThreshold}, the least-loaded healthy worker wins whatever the
 * cache. Branches: {@code kv_hit} (the winner holds ≥ 1 leading block beyond the shared branch point),
 * {@code kv_miss_shared_prefix} (it holds none beyond a shared branch point: chosen by load), {@code kv_miss_min_cost},
 * {@code imbalanced_min_load}, {@code no_healthy_workers}.
 *
 * <p>The decision carries the chosen rank (sent as {@code X-data-parallel-rank} when the engine runs several) and a
 * release action: the request's blocks stay in its rank's active set until its load lease is released. The keys past
 * the winner's GPU-resident prefix, which its engine will compute and store, go to the {@link ParityTracker}.
 *
 * <p>{@link #held}: per healthy candidate, its best rank's consecutive leading blocks on any tier × its block size, in
 * tokens (what decision-quality metrics and shadow policies compare with the engines' {@code cached_tokens}).
 *
 * <p>Thread-safe and non-blocking apart from short per-rank locks and a lock on the random generator.
 */
public final class KvAwarePolicy implements LoadBalancingPolicy, PrefixHoldings {

    public static final String NAME = "kv_aware";
    public static final String BRANCH_HIT = "kv_hit";
    public static final String BRANCH_MISS = "kv_miss_min_cost";
    public static final String BRANCH_SHARED = "kv_miss_shared_prefix";
    public static final String BRANCH_IMBALANCED = "imbalanced_min_load";
    public static final String BRANCH_NO_HEALTHY = "no_healthy_workers";

    private static final Logger LOG = LoggerFactory.getLogger(KvAwarePolicy.class);

    private final KvAwareConfig config;
    private final KvBlockIndex index;
    private final Tokenizer tokenizer;
    private final ParityTracker parity;
    private final RandomGenerator random;
    private final ActiveBlocks active = new ActiveBlocks();
    private final PeerActiveBlocks peers;
    /** Block keys of token chunks seen before. */
    private final BlockKeyCache keyCache = new BlockKeyCache();
    /** Passes through block keys, for the shared branch point; null with the discount off. */
    private final SharedPrefixes shared;

    /**
     * One engine rank of a healthy worker, with what the request would cost there.
     *
     * @param shared leading blocks (in the worker's block size) up to the request's shared branch point
     */
    private record Candidate(Worker worker, int rank, KeyChain keys, PrefixMatches.Match match, int shared,
                             double cost) {
        int matched() {
            return match == null ? 0 : match.blocks();
        }

        /** Leading blocks the rank holds beyond the shared branch point. */
        int own() {
            return Math.max(0, matched() - shared);
        }
    }

    /**
     * One request's block keys and index matches per block size, each computed once whatever the number of candidates
     * (fleets use one or two block sizes).
     */
    private final class RequestKeys {
        private final int[] tokens;
        private final long root;
        private int[] sizes = new int[1];
        private KeyChain[] keys = new KeyChain[1];
        private PrefixMatches[] matches = new PrefixMatches[1];
        private int count;

        RequestKeys(int[] tokens, long root) {
            this.tokens = tokens;
            this.root = root;
        }

        KeyChain keys(int blockSize) {
            int i = slot(blockSize); // may grow the arrays
            return keys[i];
        }

        PrefixMatches matches(int blockSize) {
            int i = slot(blockSize);
            if (matches[i] == null) {
                // engines compute at least the prompt's last token, so a hit stops one token short of it
                matches[i] = index.longestPrefixes(keys[i], Math.max(0, tokens.length - 1), config.cpuWeight(),
                        config.diskWeight());
            }
            return matches[i];
        }

        private int slot(int blockSize) {
            for (int i = 0; i < count; i++) {
                if (sizes[i] == blockSize) {
                    return i;
                }
            }
            if (count == sizes.length) {
                sizes = Arrays.copyOf(sizes, count * 2);
                keys = Arrays.copyOf(keys, count * 2);
                matches = Arrays.copyOf(matches, count * 2);
            }
            sizes[count] = blockSize;
            keys[count] = keyCache.keys(tokens, blockSize, root);
            return count++;
        }
    }

    /**
     * @param parity the self-check to feed, or null for none
     * @param random tie-breaker and sampler; seeded in tests
     */
    public KvAwarePolicy(KvAwareConfig config, KvBlockIndex index, Tokenizer tokenizer, ParityTracker parity,
                         RandomGenerator random) {
        this(config, index, tokenizer, parity, random, null);
    }

    /**
     * @param peers the other gateway replicas' active blocks (replica sync), or null alone; this policy's own are
     *              reported to them through it
     */
    public KvAwarePolicy(KvAwareConfig config, KvBlockIndex index, Tokenizer tokenizer, ParityTracker parity,
                         RandomGenerator random, PeerActiveBlocks peers) {
        this.config = Objects.requireNonNull(config, "config");
        this.index = Objects.requireNonNull(index, "index");
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
        this.parity = parity;
        this.random = Objects.requireNonNull(random, "random");
        this.peers = peers;
        this.shared = config.discountSharedPrefix() ? new SharedPrefixes() : null;
        if (peers != null) {
            peers.register(active);
        }
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
        RequestKeys request = new RequestKeys(tokens, root(context));
        KeyChain chain = null;
        int sharedTokens = 0;
        if (shared != null) {
            chain = request.keys(config.blockSize());
            int parts = 0;
            for (Worker w : healthy) {
                parts += w.rankCount();
            }
            sharedTokens = shared.sharedBlocks(chain, parts) * config.blockSize();
        }
        List<Candidate> ranks = new ArrayList<>(healthy.size());
        for (Worker w : healthy) {
            int bs = blockSize(w);
            KeyChain keys = request.keys(bs);
            PrefixMatches.Match best = request.matches(bs).match(w.id());
            double requestBlocks = (double) tokens.length / bs;
            double unit = (double) bs / config.blockSize(); // costs in blocks of kv-block-size, whatever w's size
            int sharedBlocks = sharedTokens / bs;
            for (int r = w.firstRank(); r < w.firstRank() + w.rankCount(); r++) {
                PrefixMatches.Match m = best != null && best.rank() == r ? best : null;
                double prefill = Math.max(0, requestBlocks - ownScore(m, sharedBlocks)
                        - (m == null ? 0 : config.stateAffinity() * (m.runBlocks() - m.blocks())));
                double cost = (config.overlapWeight() * prefill + decodeBlocks(w, r, keys, bs)) * unit;
                ranks.add(new Candidate(w, r, keys, m, sharedBlocks, cost));
            }
        }
        Candidate chosen;
        String branch;
        if (imbalanced(candidates)) {
            chosen = leastLoaded(ranks);
            branch = BRANCH_IMBALANCED;
        } else {
            chosen = config.temperature() > 0 ? sample(ranks) : lowestCost(ranks);
            branch = chosen.own() > 0 ? BRANCH_HIT : sharedTokens > 0 ? BRANCH_SHARED : BRANCH_MISS;
        }
        if (LOG.isDebugEnabled()) {
            StringBuilder sb = new StringBuilder();
            for (Candidate c : ranks) {
                sb.append(c.worker().id()).append('/').append(c.rank()).append(": matched ").append(c.matched())
                        .append(" cost ").append(String.format("%.1f", c.cost())).append("; ");
            }
            LOG.debug("kv_aware: {} tokens, shared {} -> {}/{} ({}); {}", tokens.length, sharedTokens,
                    chosen.worker().id(), chosen.rank(), branch, sb);
        }
        if (shared != null) {
            shared.record(chain);
        }
        return decide(chosen, branch);
    }

    /**
     * The tier-weighted match beyond the first {@code shared} blocks: those count 1 each while on the GPU (the leading
     * {@code gpuBlocks}), and beyond that the mean weight of the match's other blocks.
     */
    static double ownScore(PrefixMatches.Match m, int shared) {
        if (m == null || m.blocks() <= shared) {
            return 0;
        }
        if (shared == 0) {
            return m.score();
        }
        int gpu = m.gpuBlocks();
        double lead = shared <= gpu ? shared
                : gpu + (shared - gpu) * (m.score() - gpu) / (m.blocks() - gpu);
        return Math.max(0, m.score() - lead);
    }

    /** Read-only: the index's longest prefix per healthy candidate, in tokens; changes nothing, feeds no self-check. */
    @Override
    public HeldPrefixes held(List<Worker> candidates, SelectionContext context) {
        int[] tokens = context.tokens() != null ? context.tokens() : tokenizer.encode(context.requestText());
        RequestKeys request = new RequestKeys(tokens, root(context));
        Map<String, Long> held = new HashMap<>();
        Map<String, Long> fullAttention = new HashMap<>();
        Map<String, String> layouts = new HashMap<>();
        for (Worker w : candidates) {
            if (!w.isHealthy()) {
                continue;
            }
            int bs = blockSize(w);
            int limit = Math.max(0, tokens.length - 1) / bs;
            PrefixMatches matches = request.matches(bs);
            int blocks = Math.min(matches.matched(w.id()), limit);
            if (blocks > 0) {
                held.put(w.url(), (long) blocks * bs);
            }
            fullAttention.put(w.url(), (long) Math.min(matches.runBlocks(w.id()), limit) * bs);
            layouts.put(w.url(), index.layout(w.id()));
        }
        return new HeldPrefixes(HeldPrefixes.Unit.TOKENS, tokens.length, held, fullAttention, layouts);
    }

    /**
     * The root of the request's chain: its LoRA adapter and {@code cache_salt} as the engines' events fold them in
     * (the index builds its keys from {@code BlockStored}'s {@code lora_name} and salt). The adapter is the one the
     * gateway's prompt tokens name ({@link PromptTokens#loraName()}: SGLang's {@code lora_path}, {@code --lora-adapters},
     * SGLang's {@code base:adapter}), else the model name the request sent (vLLM serves an adapter under its own name);
     * it is folded in only once an engine has reported blocks under that {@code lora_name}: an engine that publishes no
     * adapter name (SGLang) indexes an adapter's pages under the base model's keys, and so does the request. The salt is
     * always folded in (vLLM reports it in block 0's {@code extra_keys}).
     */
    private long root(SelectionContext context) {
        PromptTokens prompt = context.prompt();
        CacheScope scope = context.cacheScope();
        String lora = prompt != null && prompt.loraName() != null ? prompt.loraName()
                : scope.model() != null && !scope.model().equals(context.model()) ? scope.model() : null;
        if (lora != null && !index.isLoraName(lora)) {
            lora = null;
        }
        String salt = prompt != null && prompt.cacheSalt() != null ? prompt.cacheSalt() : scope.cacheSalt();
        return lora == null && salt == null ? BlockKeys.PLAIN_ROOT : BlockKeys.root(lora, salt);
    }

    private int blockSize(Worker w) {
        int reported = index.blockSize(w.id());
        return reported > 0 ? reported : config.blockSize();
    }

    /** The rank's decode load in blocks if the request ran there. */
    private double decodeBlocks(Worker w, int rank, KeyChain keys, int blockSize) {
        if (config.decodeLoadSource() == KvAwareConfig.DecodeLoadSource.ENGINE) {
            EngineLoad load = w.engineLoad();
            if (load != null && load.hasTokens()) {
                return (double) load.tokens() / blockSize / w.dataParallelSize() + keys.length() + 1;
            }
        }
        return active.potential(w.id(), rank, keys) + 1 + peerBlocks(w);
    }

    /** The other replicas' active blocks on one of the worker's ranks (their total spread over its ranks). */
    private double peerBlocks(Worker w) {
        return peers == null ? 0 : (double) peers.peers(w.id()) / w.rankCount();
    }

    private Decision decide(Candidate c, String branch) {
        Worker w = c.worker();
        Runnable release = active.add(w.id(), c.rank(), c.keys(), 1); // + its partial tail and decode tokens
        if (parity != null) {
            int onGpu = c.match() == null ? 0 : c.match().gpuBlocks();
            parity.expect(w.id(), c.keys().copy(onGpu, c.keys().length()));
        }
        Decision d = Decision.of(w, NAME, branch).withOnRelease(release);
        return w.rankCount() > 1 ? d.withDataParallelRank(c.rank()) : d;
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

    /**
     * The least-loaded healthy worker (ties: random); its cheapest rank. Each worker's load is read once: requests on
     * other threads change it meanwhile, and a second read could leave no candidate at the minimum.
     */
    private Candidate leastLoaded(List<Candidate> ranks) {
        Map<Worker, Integer> loads = new HashMap<>();
        int min = Integer.MAX_VALUE;
        for (Candidate c : ranks) {
            min = Math.min(min, loads.computeIfAbsent(c.worker(), Worker::load));
        }
        List<Candidate> best = new ArrayList<>();
        for (Candidate c : ranks) {
            if (loads.get(c.worker()) == min) {
                best.add(c);
            }
        }
        return lowestCost(best);
    }

    /** Lowest cost; ties by fewer resident blocks (read only for candidates that tie), then uniformly at random. */
    private Candidate lowestCost(List<Candidate> ranks) {
        List<Candidate> best = new ArrayList<>(2);
        double bestCost = Double.POSITIVE_INFINITY;
        int bestResident = -1; // of the best so far, -1 until a tie needs it
        for (Candidate c : ranks) {
            int cmp;
            int resident = -1;
            if (best.isEmpty()) {
                cmp = -1;
            } else if (c.cost() != bestCost) {
                cmp = Double.compare(c.cost(), bestCost);
            } else {
                if (bestResident < 0) {
                    bestResident = index.residentBlocks(best.get(0).worker().id());
                }
                resident = index.residentBlocks(c.worker().id());
                cmp = Integer.compare(resident, bestResident);
            }
            if (cmp < 0) {
                best.clear();
                bestCost = c.cost();
                bestResident = resident;
            }
            if (cmp <= 0) {
                best.add(c);
            }
        }
        if (best.size() == 1) {
            return best.get(0);
        }
        synchronized (random) {
            return best.get(random.nextInt(best.size()));
        }
    }

    /** Dynamo's softmax over costs normalised by their range: lower cost, higher probability. */
    private Candidate sample(List<Candidate> ranks) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Candidate c : ranks) {
            min = Math.min(min, c.cost());
            max = Math.max(max, c.cost());
        }
        double[] weights = new double[ranks.size()];
        double sum = 0;
        for (int i = 0; i < weights.length; i++) {
            weights[i] = max == min ? 1.0
                    : Math.exp(-(ranks.get(i).cost() - min) / ((max - min) * config.temperature()));
            sum += weights[i];
        }
        double u;
        synchronized (random) {
            u = random.nextDouble() * sum;
        }
        for (int i = 0; i < weights.length; i++) {
            u -= weights[i];
            if (u <= 0) {
                return ranks.get(i);
            }
        }
        return ranks.get(ranks.size() - 1);
    }

    /** The rank's distinct in-flight blocks (for metrics and tests). */
    public int activeBlocks(String workerId, int rank) {
        return active.active(workerId, rank);
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        active.removeWorker(worker.id());
        if (parity != null) {
            parity.removeWorker(worker.id());
        }
    }
}
