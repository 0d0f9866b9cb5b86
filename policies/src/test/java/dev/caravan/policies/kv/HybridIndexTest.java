package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The index's hit for ranks of hybrid models: what every KV-cache group serves, learned from the events. */
class HybridIndexTest {

    private static final int BS = 4;
    private final KvBlockIndex index = new KvBlockIndex();
    private final FakeEngine a = new FakeEngine(1, BS);
    /** 8 blocks of 4 tokens, and one more token. */
    private final int[] prompt = FakeEngine.tokens(100, 33);
    private final KeyChain keys = KeyChain.of(BlockKeys.keys(prompt, BS, BlockKeys.PLAIN_ROOT));

    private int matched() {
        return index.longestPrefixes(keys, prompt.length - 1, 0.8, 0.3).matched("wa");
    }

    /** A store of blocks [from, to) in a group, naming only the blocks in {@code cached} (vLLM skips the others). */
    private KvEvent.BlockStored groupStore(int from, int to, int group, String kind, Integer window, int... cached) {
        long[] ids = Arrays.stream(cached).mapToLong(b -> a.id(prompt, b)).toArray();
        Long parent = from == 0 ? null : a.id(prompt, from - 1);
        return new KvEvent.BlockStored(ids, parent, Arrays.copyOfRange(prompt, from * BS, to * BS), BS, "GPU", null,
                null, null, group, kind, window);
    }

    private void storeFullAttention() {
        index.apply("wa", 0, a.stored(prompt, 0, 8, "GPU", 0, "full_attention"));
    }

    private void removeFrom(int group, int... blocks) {
        index.apply("wa", 0, new KvEvent.BlockRemoved(Arrays.stream(blocks).mapToLong(b -> a.id(prompt, b)).toArray(),
                "GPU", group));
    }

    @Test
    void aSlidingWindowThatStillHoldsTheBlocksBeforeTheEndKeepsTheWholeRun() {
        storeFullAttention();
        // window 8 tokens: a hit needs the ceil(7 / 4) = 2 blocks before its end
        index.apply("wa", 0, groupStore(0, 8, 1, "sliding_window", 8, 0, 1, 2, 3, 4, 5, 6, 7));
        removeFrom(1, 0, 1, 2, 3, 4, 5);

        assertThat(matched()).isEqualTo(8);
    }

    @Test
    void aSlidingWindowThatLostTheBlocksBeforeTheEndCutsTheHitToTheLastWholeWindow() {
        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "sliding_window", 8, 0, 1, 2, 3, 4, 5, 6, 7));
        removeFrom(1, 0, 1, 5, 6, 7);

        assertThat(matched()).isEqualTo(5);
        removeFrom(1, 3);
        assertThat(matched()).isZero();
    }

    @Test
    void aSlidingWindowStoreThatSkippedBlocksNamesTheLastOnes() {
        storeFullAttention();
        // vLLM sends the tokens of blocks 0-7 but the hashes only of 6 and 7, the blocks still in the window
        index.apply("wa", 0, groupStore(0, 8, 1, "sliding_window", 8, 6, 7));

        assertThat(matched()).isEqualTo(8);
        removeFrom(1, 6);
        assertThat(matched()).isZero();
    }

    @Test
    void aSkippingStoreBeforeAnyFullAttentionStoreStillNamesTheLastBlocks() {
        index.apply("wa", 0, groupStore(0, 8, 1, "sliding_window", 8, 6, 7));
        storeFullAttention();

        assertThat(matched()).isEqualTo(8);
    }

    @Test
    void aMambaGroupHitsAtItsLastSnapshot() {
        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "mamba", null, 1, 5));

        assertThat(matched()).isEqualTo(6);
        removeFrom(1, 5);
        assertThat(matched()).isEqualTo(2);
    }

    @Test
    void theMatchKeepsTheFullAttentionRunAndTheWorkerItsLayout() {
        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "mamba", null, 1, 5));

        PrefixMatches.Match m = index.longestPrefixes(keys, 32, 0.8, 0.3).match("wa");

        assertThat(m.blocks()).isEqualTo(6);
        assertThat(m.runBlocks()).isEqualTo(8);
        assertThat(m.score()).isEqualTo(6.0);
        assertThat(index.layout("wa")).isEqualTo("full+mamba");
        assertThat(index.layout("unknown")).isEqualTo("full");
    }

    @Test
    void withTheGroupRulesOffAHybridRankIsScoredByFullAttentionAlone() {
        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "mamba", null, 1));
        index.useGroupRules(false);

        assertThat(matched()).isEqualTo(8);
    }

    @Test
    void aMambaGroupWithLargerBlocksIsReadAtTheEndOfEachOfThem() {
        storeFullAttention();
        // Mamba blocks of 16 tokens (4 key blocks); a block's hash is the hash of its last key block
        long[] ids = {a.id(prompt, 3), a.id(prompt, 7)};
        index.apply("wa", 0, new KvEvent.BlockStored(ids, null, Arrays.copyOfRange(prompt, 0, 32), 16, "GPU", null,
                null, null, 1, "mamba", null));

        assertThat(index.longestPrefixes(keys, 31, 0.8, 0.3).matched("wa")).isEqualTo(4);
        assertThat(matched()).isEqualTo(8);
    }

    @Test
    void theLastTokenOfThePromptIsNeverAHit() {
        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "mamba", null, 7));

        assertThat(index.longestPrefixes(keys, 31, 0.8, 0.3).matched("wa")).isZero();
        assertThat(index.longestPrefixes(keys, 32, 0.8, 0.3).matched("wa")).isEqualTo(8);
    }

    @Test
    void aConfiguredChunkedLocalGroupNeedsTheBlocksOfTheCurrentChunk() {
        index.configureGroups(worker -> List.of(new KvGroupSpec(1, "chunked_local", 16)));
        storeFullAttention();
        // vLLM reports chunked-local groups as kind "unknown": the configuration says what they are
        index.apply("wa", 0, groupStore(0, 8, 1, "unknown", null, 0, 1, 2, 3, 4, 5, 6, 7));
        removeFrom(1, 0, 1, 2, 3);

        // the token after 31 is in the chunk of tokens 16-31, which needs blocks 4-6; the one after 32 needs none
        assertThat(index.longestPrefixes(keys, 31, 0.8, 0.3).matched("wa")).isEqualTo(7);
        removeFrom(1, 4);
        assertThat(index.longestPrefixes(keys, 31, 0.8, 0.3).matched("wa")).isEqualTo(4);
        assertThat(matched()).isEqualTo(8);
    }

    @Test
    void aClearForgetsTheGroupsButKeepsTheConfiguration() {
        index.configureGroups(worker -> List.of(new KvGroupSpec(1, "chunked_local", 16)));
        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "unknown", null, 0, 1, 2, 3));
        index.apply("wa", 0, new KvEvent.AllBlocksCleared());

        storeFullAttention();
        index.apply("wa", 0, groupStore(0, 8, 1, "unknown", null, 4, 5));

        assertThat(index.longestPrefixes(keys, 31, 0.8, 0.3).matched("wa")).isEqualTo(6);
    }
}
