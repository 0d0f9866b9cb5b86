package dev.caravan.bench.ceiling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class CeilingsTest {

    private final BlockSequence s = new BlockSequence();

    /** Admits a prompt whose full blocks are named {@code hashes}; its first {@code countable} blocks may hit. */
    private void admit(int countable, long... hashes) {
        s.admit(path(hashes), countable);
    }

    private int path(long... hashes) {
        int b = -1;
        for (long h : hashes) {
            b = s.block(h, b);
        }
        return b;
    }

    @Test
    void aCyclicScanJustLargerThanTheCacheDefeatsLruButNotBelady() {
        for (int round = 0; round < 2; round++) {
            admit(1, 1);
            admit(1, 2);
            admit(1, 3);
        }
        assertThat(PooledLru.hits(s, 2)).containsExactly(0, 0, 0, 0, 0, 0);
        assertThat(Belady.hits(s, 2)).containsExactly(0, 0, 0, 1, 1, 0);
    }

    @Test
    void beladyKeepsTheSharedPrefixAndTheSoonerChild() {
        admit(2, 10, 11);
        admit(2, 10, 12);
        admit(2, 10, 11);
        admit(2, 10, 12);
        assertThat(PooledLru.hits(s, 2)).containsExactly(0, 1, 1, 1);
        assertThat(Belady.hits(s, 2)).containsExactly(0, 1, 2, 1);
    }

    @Test
    void beladyEvictsAChildBeforeItsParentWhenBothAreNeededNext() {
        admit(2, 10, 11);
        admit(2, 10, 11);
        assertThat(Belady.hits(s, 1)).containsExactly(0, 1);
        assertThat(PooledLru.hits(s, 1)).containsExactly(0, 1);
    }

    @Test
    void anAnswerNobodyReadsAgainDoesNotEvictAPromptThatComesBack() {
        admit(1, 1);
        s.remember(path(7));
        admit(1, 1);
        assertThat(PooledLru.hits(s, 1)).containsExactly(0, 0);
        assertThat(Belady.hits(s, 1)).containsExactly(0, 1);
    }

    @Test
    void aRememberedAnswerServesTheNextTurn() {
        admit(1, 1, 2);
        s.remember(path(1, 2, 3));
        admit(3, 1, 2, 3, 4);
        assertThat(PooledLru.hits(s, 4)).containsExactly(0, 3);
        assertThat(Belady.hits(s, 4)).containsExactly(0, 3);
    }

    @Test
    void onlyTheCountableLeadingBlocksAreServed() {
        admit(1, 1, 2);
        admit(1, 1, 2);
        assertThat(Belady.hits(s, 10)).containsExactly(0, 1);
        assertThat(PooledLru.hits(s, 10)).containsExactly(0, 1);
    }

    @Test
    void beladyServesTheExhaustiveOptimumAndLruNeverMore() {
        SplittableRandom random = new SplittableRandom(7);
        for (int trial = 0; trial < 300; trial++) {
            BlockSequence seq = new BlockSequence();
            int[][] paths = new int[8][];
            int[] countable = new int[8];
            for (int e = 0; e < paths.length; e++) {
                int len = 1 + random.nextInt(3);
                long[] hashes = new long[len];
                for (int i = 0; i < len; i++) {
                    hashes[i] = (i == 0 ? 0 : hashes[i - 1] * 3) + 1 + random.nextInt(2);  // a binary tree, depth 3
                }
                int b = -1;
                paths[e] = new int[len];
                for (int i = 0; i < len; i++) {
                    b = seq.block(hashes[i], b);
                    paths[e][i] = b;
                }
                if (random.nextInt(4) == 0) {
                    countable[e] = -1;
                    seq.remember(b);
                } else {
                    countable[e] = random.nextInt(len + 1);
                    seq.admit(b, countable[e]);
                }
            }
            int capacity = 1 + random.nextInt(4);
            int best = exhaustive(paths, countable, seq.blocks(), capacity);
            assertThat(Arrays.stream(Belady.hits(seq, capacity)).sum()).as("trial %d", trial).isEqualTo(best);
            assertThat(Arrays.stream(PooledLru.hits(seq, capacity)).sum()).isLessThanOrEqualTo(best);
        }
    }

    /** The most blocks any schedule serves: after each event, keep any subset of what is cached or just computed. */
    private static int exhaustive(int[][] paths, int[] countable, int blocks, int capacity) {
        Map<Integer, Integer> best = new HashMap<>(Map.of(0, 0));
        for (int e = 0; e < paths.length; e++) {
            Map<Integer, Integer> next = new HashMap<>();
            for (Map.Entry<Integer, Integer> state : best.entrySet()) {
                int mask = state.getKey();
                int served = state.getValue();
                int h = 0;
                while (h < Math.max(0, countable[e]) && (mask & (1 << paths[e][h])) != 0) {
                    h++;
                }
                int available = mask;
                for (int b : paths[e]) {
                    available |= 1 << b;
                }
                for (int keep = available; ; keep = (keep - 1) & available) {
                    if (Integer.bitCount(keep) <= capacity) {
                        next.merge(keep, served + h, Math::max);
                    }
                    if (keep == 0) {
                        break;
                    }
                }
            }
            best = next;
        }
        assertThat(blocks).isLessThanOrEqualTo(30);
        return best.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }
}
