package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.KvAwareConfig.DecodeLoadSource;
import dev.caravan.policies.text.PseudoTokenizer;

class KvAwarePolicyTest {

    private static final String MODEL = "m";
    private final BlockHasher hasher = new BlockHasher(4, "0");
    private final KvBlockIndex index = new KvBlockIndex();
    private final Worker w1 = worker("w1");
    private final Worker w2 = worker("w2");
    private final Worker w3 = worker("w3");
    /** 40 tokens = 10 blocks of 4. */
    private final int[] tokens = IntStream.rangeClosed(1, 40).toArray();
    private final long[] hashes = hasher.hashes(tokens);

    private static Worker worker(String id) {
        return Worker.builder("http://" + id + ":8000").id(id).modelId(MODEL).build();
    }

    private KvAwarePolicy policy(KvAwareConfig config, ParityTracker parity) {
        return new KvAwarePolicy(config, index, new PseudoTokenizer(), hasher, parity, new Random(42));
    }

    private KvAwarePolicy policy(DecodeLoadSource source) {
        return policy(KvAwareConfig.defaults().withDecodeLoadSource(source), null);
    }

    private SelectionContext request() {
        return new SelectionContext(MODEL, "", tokens, Map.of());
    }

    private void holds(Worker w, int leadingBlocks) {
        index.store(MODEL, w.id(), Arrays.copyOf(hashes, leadingBlocks));
    }

    private static void engineTokens(Worker w, long tokens) {
        w.setEngineLoad(new EngineLoad(tokens, 1, 0, 0.5, 0));
    }

    @Test
    void reproducesDynamosWorkedExample() {
        // Cached 2/5/8 of 10 blocks -> prefill 8/5/2; decode 10/5/9 blocks -> costs 18/10/11 -> w2.
        holds(w1, 2);
        holds(w2, 5);
        holds(w3, 8);
        engineTokens(w1, 10 * 4);
        engineTokens(w2, 5 * 4);
        engineTokens(w3, 9 * 4);

        Decision d = policy(DecodeLoadSource.ENGINE).select(List.of(w1, w2, w3), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.label()).isEqualTo("kv_aware:kv_hit");
    }

    @Test
    void reproducesTheWorkedExampleOfTheDocs() {
        // docs/kv-events.md §5: block 16, 160 tokens, mean request blocks 5; A holds 2 (2 in flight), B 5 (1), C 8 (2).
        BlockHasher h16 = new BlockHasher(16, "0");
        int[] prompt = IntStream.range(0, 160).toArray();
        long[] blocks = h16.hashes(prompt);
        index.store(MODEL, "w1", Arrays.copyOf(blocks, 2));
        index.store(MODEL, "w2", Arrays.copyOf(blocks, 5));
        index.store(MODEL, "w3", Arrays.copyOf(blocks, 8));
        w1.acquire();
        w1.acquire();
        w2.acquire();
        w3.acquire();
        w3.acquire();
        KvAwarePolicy policy = new KvAwarePolicy(KvAwareConfig.defaults().withInitialRequestBlocks(5.0), index,
                new PseudoTokenizer(), h16, null, new Random(1));

        Decision d = policy.select(List.of(w1, w2, w3), new SelectionContext(MODEL, "", prompt, Map.of()));

        assertThat(d.worker()).isSameAs(w2); // costs 18, 10, 12
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void sendsTheRequestToTheWorkerHoldingItsPrefixWhenLoadsAreEqual() {
        holds(w2, 10);

        Decision d = policy(DecodeLoadSource.ROUTER).select(List.of(w1, w2, w3), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void stopsPreferringAWorkerOnceItsEngineEvictedTheFirstBlock() {
        holds(w2, 10);
        KvAwarePolicy policy = policy(DecodeLoadSource.ROUTER);
        assertThat(policy.select(List.of(w1, w2), request()).worker()).isSameAs(w2);

        index.remove(MODEL, "w2", new long[] {hashes[0]});

        Decision d = policy.select(List.of(w1, w2), request());
        assertThat(d.worker()).isSameAs(w1); // equal cost; w1 has fewer resident blocks (more free cache)
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
    }

    @Test
    void activeDecodeLoadOutweighsASmallHit() {
        holds(w1, 1);
        for (int i = 0; i < 3; i++) {
            w1.acquire();
        }

        // w1: 9 uncached + 3 in flight x 32 blocks = 105; w2: 10 uncached + 0 = 10.
        Decision d = policy(DecodeLoadSource.ROUTER).select(List.of(w1, w2), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
    }

    @Test
    void engineSourceFallsBackToRouterLoadUntilTheEngineReports() {
        holds(w1, 10);
        w1.acquire(); // 1 x 32 blocks: cost 32 vs w2's 10 uncached blocks

        Decision d = policy(DecodeLoadSource.ENGINE).select(List.of(w1, w2), request());

        assertThat(d.worker()).isSameAs(w2);
    }

    @Test
    void imbalanceGuardPicksTheLeastLoadedWorkerRegardlessOfCache() {
        holds(w1, 10);
        for (int i = 0; i < 65; i++) {
            w1.acquire();
        }
        KvAwarePolicy policy = policy(KvAwareConfig.defaults().withOverlapWeight(1_000_000).withInitialRequestBlocks(1), null);

        Decision d = policy.select(List.of(w1, w2), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.label()).isEqualTo("kv_aware:imbalanced_min_load");
    }

    @Test
    void skipsUnhealthyWorkersAndReportsWhenNoneIsLeft() {
        holds(w1, 10);
        w1.setHealthy(false);
        KvAwarePolicy policy = policy(DecodeLoadSource.ROUTER);

        assertThat(policy.select(List.of(w1, w2), request()).worker()).isSameAs(w2);

        w2.setHealthy(false);
        Decision none = policy.select(List.of(w1, w2), request());
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.label()).isEqualTo("kv_aware:no_healthy_workers");
    }

    @Test
    void tokenizesTheRequestTextWhenNoTokensAreGiven() {
        String text = "You are a helpful assistant. ".repeat(8);
        index.store(MODEL, "w3", hasher.hashes(new PseudoTokenizer().encode(text)));

        Decision d = policy(DecodeLoadSource.ROUTER).select(List.of(w1, w2, w3),
                new SelectionContext(MODEL, text, null, Map.of()));

        assertThat(d.worker()).isSameAs(w3);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void breaksExactTiesUniformlyWithTheSeededGenerator() {
        KvAwarePolicy policy = policy(DecodeLoadSource.ROUTER);
        Map<String, Integer> counts = new HashMap<>();

        for (int i = 0; i < 300; i++) {
            counts.merge(policy.select(List.of(w1, w2, w3), request()).worker().id(), 1, Integer::sum);
        }

        assertThat(counts).containsOnlyKeys("w1", "w2", "w3");
        assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween(70, 130));
    }

    @Test
    void predictsTheUnmatchedSuffixForTheParitySelfCheck() {
        AtomicLong now = new AtomicLong();
        ParityTracker parity = new ParityTracker(ParityConfig.defaults(), now::get);
        holds(w2, 6);
        KvAwarePolicy policy = policy(KvAwareConfig.defaults(), parity);

        assertThat(policy.select(List.of(w1, w2), request()).worker()).isSameAs(w2);
        parity.observe("w2", Arrays.copyOfRange(hashes, 6, 10));
        now.addAndGet(Duration.ofMinutes(5).toNanos());

        ParityTracker.Snapshot s = parity.snapshot();
        assertThat(s.matched()).isEqualTo(4);
        assertThat(s.missed()).isZero();
        assertThat(s.pending()).isZero();
    }

    @Test
    void keepsARunningMeanOfRequestBlocks() {
        KvAwarePolicy policy = policy(DecodeLoadSource.ROUTER);

        policy.select(List.of(w1), request());

        assertThat(policy.meanRequestBlocks()).isCloseTo(32 + 0.05 * (10 - 32), org.assertj.core.data.Offset.offset(1e-9));
        policy.reset();
        assertThat(policy.meanRequestBlocks()).isEqualTo(32.0);
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
        assertThatThrownBy(() -> d.withInitialRequestBlocks(0))
                .hasMessage("initialRequestBlocks (kv-initial-request-blocks) must be a finite number > 0, was 0.0");
        assertThatThrownBy(() -> d.withBlockSize(0)).hasMessage("blockSize (kv-block-size) must be >= 1, was 0");
        assertThatThrownBy(() -> d.withTokenizer(" "))
                .hasMessage("tokenizer (kv-tokenizer) must be 'pseudo' or the path of a tokenizer.json, was ' '");
    }

    @Test
    void configReadsItsOptionsByFlagName() {
        PolicyConfig c = PolicyConfig.fromOptions("kv_aware", Map.of("kv-block-size", "32", "kv-hash-seed", "42",
                "kv-overlap-weight", "2.5", "kv-decode-load-source", "engine", "balance-abs-threshold", "8",
                "kv-tokenizer", "/models/tokenizer.json", "kv-chars-per-token", "3"));
        assertThat(c).isEqualTo(new KvAwareConfig("/models/tokenizer.json", 3, 32, "42", 2.5, 8, 1.5,
                DecodeLoadSource.ENGINE, 32.0));
        assertThat(PolicyConfig.fromOptions("KvAware", Map.of())).isEqualTo(KvAwareConfig.defaults());
        assertThatThrownBy(() -> PolicyConfig.fromOptions("kv_aware", Map.of("kv-decode-load-source", "gpu")))
                .hasMessage("decodeLoadSource (kv-decode-load-source) must be router or engine, was 'gpu'");
    }
}
