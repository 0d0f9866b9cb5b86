package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

class RankLineageTest {

    private static final int BS = 4;
    private final FakeEngine engine = new FakeEngine(1, BS);
    private final int[] tokens = FakeEngine.tokens(0, 6 * BS);

    private RankIndex rank(int maxBlocks) {
        return new RankIndex(0, new KeyTable(), maxBlocks, new RankIndex.Counters(), ConcurrentHashMap.newKeySet(),
                new GroupHoldings());
    }

    @Test
    void evictingFromTheTailKeepsARankPrefixClosed() {
        RankIndex r = rank(100);
        r.stored(engine.stored(tokens, 0, 6));
        for (int b = 5; b >= 3; b--) {
            r.removed(engine.removed(tokens, b));
        }

        assertThat(r.defects()).isZero();
    }

    @Test
    void evictingAParentLeavesAHoleUntilItIsStoredAgain() {
        RankIndex r = rank(100);
        r.stored(engine.stored(tokens, 0, 6));

        r.removed(engine.removed(tokens, 2));
        assertThat(r.defects()).isEqualTo(3); // block 3 is held on the GPU (level 3) without its parent (level 0)

        r.stored(engine.stored(tokens, 2, 3));
        assertThat(r.defects()).isZero();
    }

    @Test
    void aChildOnABetterTierThanItsParentIsADefect() {
        RankIndex r = rank(100);
        r.stored(engine.stored(tokens, 0, 2, "CPU", null, null));
        r.stored(engine.stored(tokens, 2, 3));
        assertThat(r.defects()).isEqualTo(1); // block 2 on the GPU (level 3), its parent only in host memory (2)

        r.stored(engine.stored(tokens, 0, 2));
        assertThat(r.defects()).isZero();
    }

    @Test
    void droppingTheOldestEntriesAtTheBoundLeavesHoles() {
        RankIndex r = rank(4);
        r.stored(engine.stored(tokens, 0, 6)); // blocks 0 and 1 dropped, 2..5 kept

        assertThat(r.defects()).isEqualTo(3); // block 2 on the GPU, its parent dropped
        assertThat(r.clear()).isEqualTo(4);
        assertThat(r.defects()).isZero();
    }

    @Test
    void restoredEntriesHaveUnknownParents() {
        RankIndex source = rank(100);
        source.stored(engine.stored(tokens, 0, 3));
        RankIndex r = rank(100);
        r.restore(source.export(0));

        assertThat(r.defects()).isEqualTo(9); // three GPU entries (level 3) whose parents are unknown
    }
}
