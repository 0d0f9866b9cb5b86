package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The hybrid-model hit rules, on cases worked by hand from vLLM's own tests of its single-type KV-cache managers
 * (tests/v1/core/test_single_type_kv_cache_manager.py) and its coordinator's fixed point.
 */
class GroupLayoutTest {

    /** Held blocks given as a pattern of the group's blocks (one key block per group block). */
    private static GroupRule.Held pattern(boolean... held) {
        return (group, i) -> i < held.length && held[i];
    }

    private static int slidingWindowHit(boolean... held) {
        // block size 2, window 4: a hit needs ceil(3 / 2) = 2 blocks before it
        return new SlidingWindowRule(1, 2, 4).hit(held.length * 2, 2, 2, pattern(held)) / 2;
    }

    @Test
    void slidingWindowHitsAsVllmsPossibleCachedPrefixTestSays() {
        // test_sliding_window_possible_cached_prefix: expected blocks per cached-block pattern
        assertThat(slidingWindowHit(false, false, false, false)).isZero();
        assertThat(slidingWindowHit(true)).isEqualTo(1);
        assertThat(slidingWindowHit(true, false)).isEqualTo(1);
        assertThat(slidingWindowHit(true, true)).isEqualTo(2);
        assertThat(slidingWindowHit(true, true, false)).isEqualTo(2);
        assertThat(slidingWindowHit(true, true, true)).isEqualTo(3);
        assertThat(slidingWindowHit(true, true, true, false)).isEqualTo(3);
        assertThat(slidingWindowHit(true, true, false, true, false, false, true, true, false, true, true, true))
                .isEqualTo(12);
        assertThat(slidingWindowHit(true, true, false, true, false, false, true, true, false, false, false))
                .isEqualTo(8);
        assertThat(slidingWindowHit(true, true, false, true, false, false, true, true, false, false, false, true))
                .isEqualTo(8);
    }

    @Test
    void chunkedLocalAttentionSkipsTheBlocksBeforeTheCurrentChunk() {
        // the manager's documented examples: chunk 8, block 4
        ChunkedLocalRule rule = new ChunkedLocalRule(1, 4, 8);
        assertThat(rule.hit(15, 4, 4, pattern(false, false, true))).isEqualTo(12);
        assertThat(rule.hit(15, 4, 4, pattern(false, false, false))).isEqualTo(8);
        assertThat(rule.hit(16, 4, 4, pattern())).isEqualTo(16);
    }

    @Test
    void mambaHitsAtTheLastSnapshotBeforeTheLimit() {
        MambaRule rule = new MambaRule(1, 4);
        assertThat(rule.hit(20, 4, 4, pattern(false, true, false, true, false))).isEqualTo(16);
        assertThat(rule.hit(15, 4, 4, pattern(false, true, false, true, false))).isEqualTo(8);
        assertThat(rule.hit(20, 4, 4, pattern(false, false, false, false, false))).isZero();
    }

    @Test
    void aSlidingWindowBrokenBeforeTheFullRunsEndCutsTheHitToTheLastWholeWindow() {
        // block 16, window 32 (2 blocks); full attention holds 10 blocks, the window group blocks 0-3 and 6-7
        Set<Integer> window = Set.of(0, 1, 2, 3, 6, 7);
        GroupLayout layout = new GroupLayout(16, List.of(new SlidingWindowRule(1, 16, 32)));

        assertThat(layout.hitBlocks(10, 1000, (g, i) -> window.contains(i))).isEqualTo(8);
        assertThat(layout.hitBlocks(10, 100, (g, i) -> window.contains(i))).isEqualTo(4);
    }

    @Test
    void aMambaGroupWithLargerBlocksAlignsTheHitToItsBlock() {
        // key blocks of 16, Mamba blocks of 64: snapshots after Mamba blocks 0 and 2 end key blocks 3 and 11
        Set<Integer> snapshots = Set.of(3, 11);
        GroupLayout layout = new GroupLayout(16, List.of(new MambaRule(1, 64)));

        assertThat(layout.align()).isEqualTo(64);
        assertThat(layout.hitBlocks(14, 10_000, (g, i) -> snapshots.contains(i))).isEqualTo(12);
        assertThat(layout.hitBlocks(11, 10_000, (g, i) -> snapshots.contains(i))).isEqualTo(4);
        assertThat(layout.hitBlocks(3, 10_000, (g, i) -> snapshots.contains(i))).isZero();
    }

    @Test
    void theGroupsCutTheLengthInTurnUntilNoneCutsIt() {
        // a window group accepts 8 blocks, Mamba only 6 there, and at 6 the window is missing: both cut again to 3
        Set<Integer> window = Set.of(0, 1, 2, 6, 7);
        Set<Integer> snapshots = Set.of(2, 5);
        GroupLayout layout = new GroupLayout(16, List.of(new SlidingWindowRule(1, 16, 32), new MambaRule(2, 16)));

        int hit = layout.hitBlocks(8, 10_000, (g, i) -> g == 1 ? window.contains(i) : snapshots.contains(i));

        assertThat(hit).isEqualTo(3);
    }

    @Test
    void aGroupBlockThatIsNotAWholeNumberOfKeyBlocksIsRefused() {
        assertThatThrownBy(() -> new GroupLayout(16, List.of(new MambaRule(1, 40))))
                .hasMessageContaining("not a multiple");
    }

    @Test
    void configuredGroupsParseAndNameWhatIsWrong() {
        assertThat(KvGroupSpec.parseList("0:full_attention, 1:chunked_local:8192"))
                .containsExactly(new KvGroupSpec(0, "full_attention", 0), new KvGroupSpec(1, "chunked_local", 8192));
        assertThatThrownBy(() -> KvGroupSpec.parseList("1:sliding_window"))
                .hasMessageContaining("needs its window");
        assertThatThrownBy(() -> KvGroupSpec.parseList("1:lightning")).hasMessageContaining("kind must be");
        assertThatThrownBy(() -> KvGroupSpec.parseList("x:mamba")).hasMessageContaining("must be integers");
    }
}
