package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class KvBlockIndexTest {

    private static final int BS = 4;
    private final KvBlockIndex index = new KvBlockIndex();
    private final FakeEngine a = new FakeEngine(1, BS);
    private final FakeEngine b = new FakeEngine(2, BS);
    /** 6 blocks of 4 tokens. */
    private final int[] prompt = FakeEngine.tokens(100, 24);
    private final long[] keys = BlockKeys.keys(prompt, BS, BlockKeys.PLAIN_ROOT);

    private PrefixMatches lookup(long[] k) {
        return index.longestPrefixes(k, 0.8, 0.3);
    }

    @Test
    void enginesThatNameBlocksDifferentlyAgreeOnKeys() {
        index.apply("wa", 0, a.stored(prompt, 0, 6));
        index.apply("wb", 0, b.stored(prompt, 0, 3));

        PrefixMatches m = lookup(keys);

        assertThat(a.id(prompt, 0)).isNotEqualTo(b.id(prompt, 0));
        assertThat(m.matched()).containsOnlyKeys("wa", "wb");
        assertThat(m.matched("wa")).isEqualTo(6);
        assertThat(m.matched("wb")).isEqualTo(3);
        assertThat(index.distinctBlocks()).isEqualTo(6);
    }

    @Test
    void aStoreThatContinuesAnEarlierOneChainsFromItsParent() {
        index.apply("wa", 0, a.stored(prompt, 0, 2));
        KvBlockIndex.Applied second = index.apply("wa", 0, a.stored(prompt, 2, 6));

        assertThat(second.stored()).containsExactly(keys[2], keys[3], keys[4], keys[5]);
        assertThat(lookup(keys).matched("wa")).isEqualTo(6);
    }

    @Test
    void removalsResolveEngineIdsToKeys() {
        index.apply("wa", 0, a.stored(prompt, 0, 6));

        KvBlockIndex.Applied r = index.apply("wa", 0, a.removed(prompt, 3));

        assertThat(r.removed()).containsExactly(keys[3]);
        assertThat(lookup(keys).matched("wa")).isEqualTo(3);
        assertThat(index.residentBlocks("wa")).isEqualTo(5);
    }

    @Test
    void aBlockWhoseParentWasNeverSeenIsDroppedAndCountedWithItsDescendants() {
        KvBlockIndex.Applied r = index.apply("wa", 0, a.stored(prompt, 2, 4));
        index.apply("wa", 0, a.stored(prompt, 4, 6));

        assertThat(r.orphans()).isEqualTo(2);
        assertThat(index.orphanBlocks()).isEqualTo(4);
        assertThat(index.residentBlocks("wa")).isZero();
        // the prefix itself arrives later: the engine reports it, the chain is whole again for new stores
        index.apply("wa", 0, a.stored(prompt, 0, 2));
        assertThat(lookup(keys).matched("wa")).isEqualTo(2);
    }

    @Test
    void removalsOfUnknownIdsAreCountedAndIgnored() {
        index.apply("wa", 0, a.removed(prompt, 0));

        assertThat(index.unknownRemovals()).isEqualTo(1);
        assertThat(index.residentBlocks("wa")).isZero();
    }

    @Test
    void storingTheSameBlockTwiceIsIdempotent() {
        index.apply("wa", 0, a.stored(prompt, 0, 2));
        index.apply("wa", 0, a.stored(prompt, 0, 2));

        assertThat(index.residentBlocks("wa")).isEqualTo(2);
        index.apply("wa", 0, a.removed(prompt, 1));
        assertThat(lookup(keys).matched("wa")).isEqualTo(1);
    }

    @Test
    void loraAndSaltScopeTheChain() {
        KvEvent.BlockStored plain = a.stored(prompt, 0, 2);
        index.apply("wa", 0, new KvEvent.BlockStored(plain.blockHashes(), null, plain.tokenIds(), BS, "GPU",
                "sql-lora", null, null, null, null));
        index.apply("wb", 0, new KvEvent.BlockStored(b.stored(prompt, 0, 2).blockHashes(), null, plain.tokenIds(), BS,
                "GPU", null, "tenant-a", null, null, null));

        assertThat(lookup(keys).matched()).isEmpty();
        assertThat(lookup(BlockKeys.keys(prompt, BS, BlockKeys.root("sql-lora", null))).matched())
                .containsOnlyKeys("wa");
        assertThat(lookup(BlockKeys.keys(prompt, BS, BlockKeys.root(null, "tenant-a"))).matched())
                .containsOnlyKeys("wb");
        assertThat(index.isLoraName("sql-lora")).isTrue();
        assertThat(index.isLoraName("tenant-a")).isFalse();
    }

    @Test
    void aSlidingWindowGroupsRemovalLeavesTheFullAttentionGroupsBlock() {
        index.apply("wa", 0, a.stored(prompt, 0, 6, "GPU", 0, "full_attention"));
        index.apply("wa", 0, a.stored(prompt, 0, 6, "GPU", 1, "sliding_window"));

        index.apply("wa", 0, new KvEvent.BlockRemoved(new long[] {a.id(prompt, 0), a.id(prompt, 1)}, "GPU", 1));

        assertThat(lookup(keys).matched("wa")).isEqualTo(6);
        index.apply("wa", 0, new KvEvent.BlockRemoved(new long[] {a.id(prompt, 1)}, "GPU", 0));
        assertThat(lookup(keys).matched("wa")).isEqualTo(1);
    }

    @Test
    void blocksOnlyASlidingWindowGroupHoldsAreNotRoutable() {
        index.apply("wa", 0, a.stored(prompt, 0, 6, "GPU", 1, "sliding_window"));

        assertThat(lookup(keys).matched()).isEmpty();
        assertThat(index.residentBlocks("wa")).isEqualTo(6);
    }

    @Test
    void lowerTiersCountWithTheirWeightAndKeepThePrefixGoing() {
        index.apply("wa", 0, a.stored(prompt, 0, 6));
        // GPU evicts blocks 2..5; the CPU tier holds 2..3 (vLLM's offload stores carry no tokens)
        for (int blk = 2; blk < 6; blk++) {
            index.apply("wa", 0, a.removed(prompt, blk));
        }
        index.apply("wa", 0, new KvEvent.BlockStored(new long[] {a.id(prompt, 2), a.id(prompt, 3)}, null,
                new int[0], 0, "CPU", null, null, null, null, null));

        PrefixMatches.Match m = lookup(keys).match("wa");

        assertThat(m.blocks()).isEqualTo(4);
        assertThat(m.gpuBlocks()).isEqualTo(2);
        assertThat(m.score()).isCloseTo(2 + 2 * 0.8, org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void offloadStoresOfBlocksNeverSeenOnTheGpuAreOrphans() {
        KvBlockIndex.Applied r = index.apply("wa", 0, new KvEvent.BlockStored(new long[] {42}, null, new int[0], 0,
                "CPU", null, null, null, null, null));

        assertThat(r.orphans()).isEqualTo(1);
        assertThat(index.residentBlocks("wa")).isZero();
    }

    @Test
    void unknownMediaAreCountedNotIndexed() {
        index.apply("wa", 0, a.stored(prompt, 0, 2, "EXTERNAL", null, null));

        assertThat(index.unknownMediumBlocks()).isEqualTo(2);
        assertThat(index.residentBlocks("wa")).isZero();
    }

    @Test
    void eachRankIsIndexedOnItsOwnAndTheBestRankWins() {
        index.apply("wa", 0, a.stored(prompt, 0, 2));
        index.apply("wa", 1, b.stored(prompt, 0, 5));

        PrefixMatches.Match m = lookup(keys).match("wa");

        assertThat(m.rank()).isEqualTo(1);
        assertThat(m.blocks()).isEqualTo(5);
        assertThat(index.clearRank("wa", 1)).isEqualTo(5);
        assertThat(lookup(keys).match("wa").rank()).isZero();
        assertThat(index.residentBlocks("wa")).isEqualTo(2);
    }

    @Test
    void allBlocksClearedDropsOnlyThatRank() {
        index.apply("wa", 0, a.stored(prompt, 0, 2));
        index.apply("wa", 1, b.stored(prompt, 0, 2));

        index.apply("wa", 1, new KvEvent.AllBlocksCleared());

        assertThat(lookup(keys).match("wa").rank()).isZero();
        assertThat(index.residentBlocks("wa")).isEqualTo(2);
    }

    @Test
    void theBoundDropsARanksOldestStoredBlocksFirst() {
        KvBlockIndex small = new KvBlockIndex(4);
        small.apply("wa", 0, a.stored(prompt, 0, 6));

        assertThat(small.residentBlocks("wa")).isEqualTo(4);
        assertThat(small.droppedBlocks()).isEqualTo(2);
        assertThat(small.longestPrefixes(keys, 1, 1).matched()).isEmpty(); // blocks 0 and 1 went first
        assertThat(small.holds("wa", keys[5], KvTier.GPU)).isTrue();
    }

    @Test
    void twoEngineIdsForOneKeyKeepTheKeyUntilBothAreRemoved() {
        // SGLang names a LoRA request's pages differently but publishes no LoRA: same tokens, two ids
        index.apply("wa", 0, a.stored(prompt, 0, 1));
        index.apply("wa", 0, b.stored(prompt, 0, 1));

        index.apply("wa", 0, a.removed(prompt, 0));
        assertThat(index.holds("wa", keys[0], KvTier.GPU)).isTrue();
        index.apply("wa", 0, b.removed(prompt, 0));
        assertThat(index.holds("wa", keys[0], KvTier.GPU)).isFalse();
    }

    @Test
    void learnsEachWorkersBlockSizeFromItsStores() {
        index.apply("wa", 0, a.stored(prompt, 0, 1));

        assertThat(index.blockSize("wa")).isEqualTo(BS);
        assertThat(index.blockSize("wb")).isZero();
    }

    @Test
    void aStoreWithAnotherBlockSizeHoldsOnlyUntilTheNextStoreAndAClearedWorkerForgetsIt() {
        index.apply("wa", 0, KvEvent.BlockStored.of(new long[] {900}, null, new int[64], 64)); // one odd store
        assertThat(index.blockSize("wa")).isEqualTo(64);

        index.apply("wa", 0, a.stored(prompt, 0, 1));
        assertThat(index.blockSize("wa")).isEqualTo(BS);

        index.clearWorker("wa");
        assertThat(index.blockSize("wa")).isZero();
    }

    @Test
    void removingAWorkerFreesItsSlotsForTheNextOne() {
        index.apply("wa", 0, a.stored(prompt, 0, 6));
        index.removeWorker("wa");
        index.apply("wc", 0, b.stored(prompt, 0, 1));

        assertThat(lookup(keys).matched()).isEqualTo(Map.of("wc", new PrefixMatches.Match(0, 1, 1, 1.0)));
        assertThat(index.residentBlockCounts()).isEqualTo(Map.of("wc", 1));
    }

    @Test
    void rejectsABoundBelowOne() {
        assertThatThrownBy(() -> new KvBlockIndex(0)).hasMessage("maxBlocksPerRank must be >= 1, was 0");
    }
}
