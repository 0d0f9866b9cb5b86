package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheScope;
import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.KvAwareConfig.DecodeLoadSource;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.text.PromptTokens;
import dev.caravan.policies.text.PseudoTokenizer;

class KvAwarePolicyTest {

    private static final String MODEL = "m";
    private static final int BS = 4;
    private final KvBlockIndex index = new KvBlockIndex();
    private final Worker w1 = worker("w1");
    private final Worker w2 = worker("w2");
    private final Worker w3 = worker("w3");
    /** 40 tokens = 10 blocks of 4. */
    private final int[] tokens = FakeEngine.tokens(1, 40);
    private final long[] keys = BlockKeys.keys(tokens, BS, BlockKeys.PLAIN_ROOT);

    /** The defaults with overlap weight 2, the weight the comments' arithmetic uses. */
    private static KvAwareConfig base() {
        return KvAwareConfig.defaults().withOverlapWeight(2);
    }

    private static Worker worker(String id) {
        return Worker.builder("http://" + id + ":8000").id(id).modelId(MODEL).build();
    }

    private KvAwarePolicy policy(KvAwareConfig config) {
        return policy(config, null);
    }

    private KvAwarePolicy policy(KvAwareConfig config, ParityTracker parity) {
        return new KvAwarePolicy(config.withBlockSize(BS), index, new PseudoTokenizer(), parity, new Random(42));
    }

    private static SelectionContext request(int[] t) {
        return new SelectionContext(MODEL, "", t, Map.of());
    }

    private SelectionContext request() {
        return request(tokens);
    }

    /** The worker's engine (rank 0) reports holding the first {@code blocks} blocks of {@code t}. */
    private void holds(Worker w, int[] t, int blocks) {
        index.apply(w.id(), 0, new FakeEngine(w.id().hashCode(), BS).stored(t, 0, blocks));
    }

    private void holds(Worker w, int blocks) {
        holds(w, tokens, blocks);
    }

    @Test
    void sendsTheRequestToTheWorkerHoldingTheLongestPrefix() {
        holds(w2, 5);
        holds(w3, 8);

        Decision d = policy(base()).select(List.of(w1, w2, w3), request());

        assertThat(d.worker()).isSameAs(w3);
        assertThat(d.label()).isEqualTo("kv_aware:kv_hit");
        assertThat(d.dataParallelRank()).isNull();
    }

    @Test
    void heldPrefixesAreEachHealthyWorkersLeadingBlocksInTokensAndChangeNothing() {
        holds(w2, 5);
        holds(w3, 8);
        KvAwarePolicy policy = policy(base());

        HeldPrefixes held = policy.held(List.of(w1, w2, w3), request());

        assertThat(held.unit()).isEqualTo(HeldPrefixes.Unit.TOKENS);
        assertThat(held.requestSize()).isEqualTo(40);
        assertThat(held.byWorker()).isEqualTo(Map.of(w2.url(), 20L, w3.url(), 32L));
        assertThat(held.best()).isEqualTo(32);
        assertThat(policy.activeBlocks("w2", 0) + policy.activeBlocks("w3", 0)).isZero();
        w3.setHealthy(false);
        assertThat(policy.held(List.of(w1, w2, w3), request()).best()).isEqualTo(20);
    }

    @Test
    void countsTheActiveBlocksOfRequestsSharingAPrefixOnce() {
        holds(w1, 10);
        KvAwarePolicy policy = policy(base());
        WorkerLease first = policy.select(List.of(w1, w2), request()).acquire();
        assertThat(first.worker()).isSameAs(w1);
        assertThat(policy.activeBlocks("w1", 0)).isEqualTo(11); // 10 blocks + the request's tail

        // same prompt: w1 costs 2 x 0 + (11 + 0 new + 1 tail) = 12; w2 costs 2 x 10 + 11 = 31
        WorkerLease second = policy.select(List.of(w1, w2), request()).acquire();
        assertThat(second.worker()).isSameAs(w1);
        assertThat(policy.activeBlocks("w1", 0)).isEqualTo(12); // the prefix counted once, two tails

        // another prompt nobody holds: w1 costs 2 x 10 + (12 + 10 + 1) = 43, w2 2 x 10 + 11 = 31
        Decision other = policy.select(List.of(w1, w2), request(FakeEngine.tokens(1000, 40)));
        assertThat(other.worker()).isSameAs(w2);
        assertThat(other.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
    }

    @Test
    void releasingTheLeaseTakesTheRequestsBlocksOutOfTheActiveSet() {
        holds(w1, 10);
        KvAwarePolicy policy = policy(base());
        WorkerLease lease = policy.select(List.of(w1), request()).acquire();

        lease.release();
        lease.release();

        assertThat(policy.activeBlocks("w1", 0)).isZero();
        assertThat(w1.load()).isZero();
    }

    @Test
    void reproducesDynamosWorkedExample() {
        // Cached 2/5/8 of 10 blocks -> prefill 8/5/2; decode 10/5/9 blocks -> costs 18/10/11 (+ 11 each) -> w2.
        holds(w1, 2);
        holds(w2, 5);
        holds(w3, 8);
        w1.setEngineLoad(new EngineLoad(10 * BS, 1, 0, 0.5, 0));
        w2.setEngineLoad(new EngineLoad(5 * BS, 1, 0, 0.5, 0));
        w3.setEngineLoad(new EngineLoad(9 * BS, 1, 0, 0.5, 0));

        Decision d = policy(base().withOverlapWeight(1).withDecodeLoadSource(DecodeLoadSource.ENGINE))
                .select(List.of(w1, w2, w3), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.label()).isEqualTo("kv_aware:kv_hit");
    }

    @Test
    void engineSourceFallsBackToTheRoutersActiveBlocksUntilTheEngineReports() {
        holds(w1, 10);
        KvAwarePolicy policy = policy(base().withOverlapWeight(1)
                .withDecodeLoadSource(DecodeLoadSource.ENGINE));
        policy.select(List.of(w1), request(FakeEngine.tokens(500, 120))).acquire(); // 31 active blocks on w1

        // w1: 0 + (31 + 10 + 1) = 42; w2: 10 + 11 = 21
        assertThat(policy.select(List.of(w1, w2), request()).worker()).isSameAs(w2);
    }

    @Test
    void samplesBySoftmaxOfNormalisedCostsAboveZeroTemperature() {
        holds(w1, 10); // cost 2 x 0 + 11 = 11
        holds(w2, 5); //  cost 2 x 5 + 11 = 21
        KvAwarePolicy policy = policy(base().withTemperature(1.0)); // w3: 2 x 10 + 11 = 31
        Map<String, Integer> counts = new HashMap<>();
        int n = 20_000;

        for (int i = 0; i < n; i++) {
            Decision d = policy.select(List.of(w1, w2, w3), request());
            d.acquire().release();
            counts.merge(d.worker().id(), 1, Integer::sum);
        }

        // normalised costs 0, 0.5, 1 -> weights 1, e^-0.5, e^-1
        double sum = 1 + Math.exp(-0.5) + Math.exp(-1);
        assertThat(counts.get("w1") / (double) n).isCloseTo(1 / sum, within(0.015));
        assertThat(counts.get("w2") / (double) n).isCloseTo(Math.exp(-0.5) / sum, within(0.015));
        assertThat(counts.get("w3") / (double) n).isCloseTo(Math.exp(-1) / sum, within(0.015));
    }

    @Test
    void breaksCostTiesByFewerResidentBlocksThenAtRandom() {
        holds(w1, FakeEngine.tokens(900, 40), 10); // w1's cache is fuller
        KvAwarePolicy policy = policy(base());

        Decision first = policy.select(List.of(w1, w2), request());
        first.acquire().release();
        assertThat(first.worker()).isSameAs(w2);

        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            Decision d = policy.select(List.of(w2, w3), request());
            d.acquire().release();
            counts.merge(d.worker().id(), 1, Integer::sum);
        }
        assertThat(counts.get("w2")).isBetween(120, 180);
        assertThat(counts.get("w3")).isBetween(120, 180);
    }

    @Test
    void imbalanceGuardPicksTheLeastLoadedWorkerRegardlessOfCache() {
        holds(w1, 10);
        for (int i = 0; i < 65; i++) {
            w1.acquire();
        }

        Decision d = policy(base().withOverlapWeight(1_000_000)).select(List.of(w1, w2), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.label()).isEqualTo("kv_aware:imbalanced_min_load");
    }

    @Test
    void pinsTheRankThatHoldsThePrefixOnADataParallelEngine() {
        Worker dp = Worker.builder("http://dp:8000").id("dp").modelId(MODEL).dataParallelSize(2).build();
        index.apply("dp", 1, new FakeEngine(9, BS).stored(tokens, 0, 10));
        KvAwarePolicy policy = policy(base());

        Decision d = policy.select(List.of(dp, w2), request());

        assertThat(d.worker()).isSameAs(dp);
        assertThat(d.dataParallelRank()).isEqualTo(1);
        d.acquire();
        assertThat(policy.activeBlocks("dp", 1)).isEqualTo(11);
        // a prompt nobody holds: dp rank 0 and w2 both cost 2 x 10 + 11 = 31, rank 1 costs 20 + 22 = 42; the tie
        // goes to w2, whose cache holds less
        Decision next = policy.select(List.of(dp, w2), request(FakeEngine.tokens(700, 40)));
        assertThat(next.worker()).isSameAs(w2);
        assertThat(next.dataParallelRank()).isNull();
    }

    @Test
    void aRankWorkerOfADpAwareEngineIsScoredOnItsOwnRankOnly() {
        Worker rank0 = Worker.builder("http://dp:8000").id("dp@0").modelId(MODEL).dataParallelRank(0, 2).build();
        Worker rank1 = Worker.builder("http://dp:8000").id("dp@1").modelId(MODEL).dataParallelRank(1, 2).build();
        index.apply("dp@1", 1, new FakeEngine(9, BS).stored(tokens, 0, 10));
        index.apply("dp@0", 1, new FakeEngine(8, BS).stored(tokens, 0, 10)); // not rank 0's blocks: never counted
        KvAwarePolicy policy = policy(base());

        Decision d = policy.select(List.of(rank0, rank1), request());
        d.acquire();

        assertThat(d.worker()).isSameAs(rank1);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
        assertThat(d.dataParallelRank()).isNull(); // the worker itself is pinned to its rank
        assertThat(policy.activeBlocks("dp@1", 1)).isEqualTo(11);
    }

    @Test
    void routesAnAdapterRequestOnlyToEnginesThatCachedItUnderThatAdapter() {
        KvEvent.BlockStored plain = new FakeEngine(5, BS).stored(tokens, 0, 10);
        index.apply("w1", 0, new KvEvent.BlockStored(plain.blockHashes(), null, plain.tokenIds(), BS, "GPU",
                "sql-lora", null, null, null, null));
        holds(w2, 10);
        KvAwarePolicy policy = policy(base());

        Decision adapter = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", tokens, Map.of(), null,
                new CacheScope("sql-lora", null)));
        Decision base = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", tokens, Map.of(), null,
                new CacheScope(MODEL, null)));
        Decision unknownAdapter = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", tokens, Map.of(), null,
                new CacheScope("never-seen", null)));

        assertThat(adapter.worker()).isSameAs(w1);
        assertThat(base.worker()).isSameAs(w2);
        assertThat(unknownAdapter.worker()).isSameAs(w2); // a name no engine reported as lora_name is the base model
    }

    @Test
    void aSaltedRequestSharesNothingWithTheSamePromptUnsalted() {
        holds(w1, 10);
        KvEvent.BlockStored plain = new FakeEngine(6, BS).stored(tokens, 0, 10);
        index.apply("w2", 0, new KvEvent.BlockStored(plain.blockHashes(), null, plain.tokenIds(), BS, "GPU", null,
                "tenant-a", null, null, null));
        KvAwarePolicy policy = policy(base());

        Decision salted = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", tokens, Map.of(), null,
                new CacheScope(null, "tenant-a")));
        Decision otherSalt = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", tokens, Map.of(), null,
                new CacheScope(null, "tenant-b")));

        assertThat(salted.worker()).isSameAs(w2);
        assertThat(salted.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
        assertThat(otherSalt.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
    }

    @Test
    void foldsThePromptTokensAdapterAndSaltIntoTheKeyTheIndexBuildsFromTheEnginesStore() {
        KvEvent.BlockStored plain = new FakeEngine(7, BS).stored(tokens, 0, 10);
        index.apply("w1", 0, new KvEvent.BlockStored(plain.blockHashes(), null, plain.tokenIds(), BS, "GPU",
                "sql-lora", "tenant-a", null, null, null));
        holds(w2, 10);
        KvAwarePolicy policy = policy(base());
        // the request names the base model; the gateway's prompt tokens name the adapter (lora_path, --lora-adapters)
        PromptTokens both = new PromptTokens(tokens, "sql-lora", "tenant-a", PromptTokens.Source.LOCAL);
        PromptTokens adapterOnly = new PromptTokens(tokens, "sql-lora", null, PromptTokens.Source.LOCAL);
        PromptTokens plainPrompt = new PromptTokens(tokens, null, null, PromptTokens.Source.LOCAL);

        Decision exact = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", null, Map.of(), both,
                new CacheScope(MODEL, null)));
        Decision noSalt = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", null, Map.of(),
                adapterOnly, new CacheScope(MODEL, null)));
        Decision saltFromRequest = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", null, Map.of(),
                adapterOnly, new CacheScope(MODEL, "tenant-a")));
        Decision base = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", null, Map.of(), plainPrompt));

        assertThat(exact.worker()).isSameAs(w1);
        assertThat(exact.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
        assertThat(noSalt.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
        assertThat(saltFromRequest.worker()).isSameAs(w1);
        assertThat(base.worker()).isSameAs(w2);
    }

    @Test
    void keysAnAdapterNoEngineReportedAsTheBaseModel() {
        holds(w2, 10); // SGLang publishes no lora_name: its adapter pages look like the base model's
        KvAwarePolicy policy = policy(base());
        PromptTokens sglangAdapter = new PromptTokens(tokens, "my-adapter", null, PromptTokens.Source.LOCAL);

        Decision d = policy.select(List.of(w1, w2), new SelectionContext(MODEL, "", null, Map.of(), sglangAdapter));

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void usesTheBlockSizeTheEngineReported() {
        index.apply("w2", 0, new FakeEngine(3, 8).stored(tokens, 0, 5)); // an engine with 8-token blocks

        Decision d = policy(base()).select(List.of(w1, w2), request());

        assertThat(index.blockSize("w2")).isEqualTo(8);
        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void predictsTheKeysPastTheGpuPrefixForTheParitySelfCheck() {
        AtomicLong now = new AtomicLong();
        ParityTracker parity = new ParityTracker(ParityConfig.defaults(), now::get);
        holds(w2, 6);
        KvAwarePolicy policy = policy(base(), parity);

        assertThat(policy.select(List.of(w1, w2), request()).worker()).isSameAs(w2);
        parity.observe("w2", Arrays.copyOfRange(keys, 6, 10));
        now.addAndGet(Duration.ofMinutes(5).toNanos());

        ParityTracker.Snapshot s = parity.snapshot();
        assertThat(s.matched()).isEqualTo(4);
        assertThat(s.missed()).isZero();
        assertThat(s.pending()).isZero();
    }

    @Test
    void skipsUnhealthyWorkersAndReportsWhenNoneIsLeft() {
        holds(w1, 10);
        w1.setHealthy(false);
        KvAwarePolicy policy = policy(base());

        assertThat(policy.select(List.of(w1, w2), request()).worker()).isSameAs(w2);

        w2.setHealthy(false);
        Decision none = policy.select(List.of(w1, w2), request());
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.label()).isEqualTo("kv_aware:no_healthy_workers");
    }

    @Test
    void tokenizesTheRequestTextWhenNoTokensAreGiven() {
        String text = "You are a helpful assistant. ".repeat(8);
        holds(w3, new PseudoTokenizer().encode(text), 14);

        Decision d = policy(base()).select(List.of(w1, w2, w3),
                new SelectionContext(MODEL, text, null, Map.of()));

        assertThat(d.worker()).isSameAs(w3);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void forgetsTheActiveBlocksOfAWorkerThatLeft() {
        KvAwarePolicy policy = policy(base());
        policy.select(List.of(w1), request()).acquire();

        policy.onWorkerRemoved(w1);

        assertThat(policy.activeBlocks("w1", 0)).isZero();
        assertThat(policy.name()).isEqualTo("kv_aware");
        assertThat(policy.needsRequestText()).isTrue();
    }

    @Test
    void configRejectsOutOfRangeValuesNamingThem() {
        KvAwareConfig d = KvAwareConfig.defaults();
        assertThatThrownBy(() -> d.withOverlapWeight(-1))
                .hasMessage("overlapWeight (kv-overlap-weight) must be a finite number >= 0, was -1.0");
        assertThatThrownBy(() -> d.withBalance(-1, 1.5))
                .hasMessage("balanceAbsThreshold (balance-abs-threshold) must be >= 0, was -1");
        assertThatThrownBy(() -> d.withBalance(64, 0.5))
                .hasMessage("balanceRelThreshold (balance-rel-threshold) must be >= 1, was 0.5");
        assertThatThrownBy(() -> d.withDecodeLoadSource(null))
                .hasMessage("decodeLoadSource (kv-decode-load-source) must be router or engine, was null");
        assertThatThrownBy(() -> d.withBlockSize(0)).hasMessage("blockSize (kv-block-size) must be >= 1, was 0");
        assertThatThrownBy(() -> d.withTokenizer(" "))
                .hasMessage("tokenizer (kv-tokenizer) must be 'pseudo' or the path of a tokenizer.json, was ' '");
        assertThatThrownBy(() -> d.withTierWeights(1.5, 0.3))
                .hasMessage("cpuWeight (kv-cpu-weight) must be in [0,1], was 1.5");
        assertThatThrownBy(() -> d.withTierWeights(0.8, -0.1))
                .hasMessage("diskWeight (kv-disk-weight) must be in [0,1], was -0.1");
        assertThatThrownBy(() -> d.withTemperature(-1))
                .hasMessage("temperature (kv-router-temperature) must be a finite number >= 0, was -1.0");
    }

    @Test
    void configReadsItsOptionsByFlagNameAndStillAcceptsTheHashSeed() {
        PolicyConfig c = PolicyConfig.fromOptions("kv_aware", Map.of("kv-block-size", "32", "kv-hash-seed", "42",
                "kv-overlap-weight", "2.5", "kv-decode-load-source", "engine", "balance-abs-threshold", "8",
                "kv-tokenizer", "/models/tokenizer.json", "kv-chars-per-token", "3", "kv-cpu-weight", "0.5",
                "kv-disk-weight", "0.1", "kv-router-temperature", "0.7"));
        assertThat(c).isEqualTo(new KvAwareConfig("/models/tokenizer.json", 3, 32, 2.5, 8, 1.5,
                DecodeLoadSource.ENGINE, 0.5, 0.1, 0.7, true));
        assertThat(PolicyConfig.fromOptions("kv_aware", Map.of("kv-discount-shared-prefix", "false")))
                .isEqualTo(KvAwareConfig.defaults().withDiscountSharedPrefix(false));
        assertThat(PolicyConfig.fromOptions("KvAware", Map.of())).isEqualTo(KvAwareConfig.defaults());
        assertThatThrownBy(() -> PolicyConfig.fromOptions("kv_aware", Map.of("kv-decode-load-source", "gpu")))
                .hasMessage("decodeLoadSource (kv-decode-load-source) must be router or engine, was 'gpu'");
    }
}
