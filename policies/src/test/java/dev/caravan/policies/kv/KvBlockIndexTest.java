package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class KvBlockIndexTest {

    private static final String M = "llama";
    private final KvBlockIndex index = new KvBlockIndex();

    private static long[] h(long... hashes) {
        return hashes;
    }

    @Test
    void storingTheSameBlockTwiceIsIdempotent() {
        assertThat(index.store(M, "w1", h(1, 2))).isEqualTo(2);
        assertThat(index.store(M, "w1", h(2, 1))).isZero();

        assertThat(index.residentBlocks("w1")).isEqualTo(2);
        assertThat(index.distinctBlocks(M)).isEqualTo(2);
    }

    @Test
    void longestPrefixCountsOnlyConsecutiveLeadingBlocks() {
        index.store(M, "w1", h(10, 11, 13));
        index.store(M, "w2", h(11, 12));
        index.store(M, "w3", h(10, 11, 12, 13));

        PrefixMatches m = index.longestPrefixes(M, h(10, 11, 12, 13));

        assertThat(m.requestBlocks()).isEqualTo(4);
        assertThat(m.matched()).containsExactlyInAnyOrderEntriesOf(Map.of("w1", 2, "w3", 4));
        assertThat(m.matched("w2")).isZero();
    }

    @Test
    void modelsAreIndexedSeparately() {
        index.store("a", "w1", h(1));

        assertThat(index.longestPrefixes("b", h(1)).matched()).isEmpty();
        assertThat(index.longestPrefixes("a", h(1)).matched("w1")).isEqualTo(1);
    }

    @Test
    void removingABlockFromOneWorkerKeepsItForTheOthers() {
        index.store(M, "w1", h(1, 2));
        index.store(M, "w2", h(1, 2));

        assertThat(index.remove(M, "w1", h(1, 99))).isEqualTo(1);

        assertThat(index.longestPrefixes(M, h(1, 2)).matched()).containsExactlyInAnyOrderEntriesOf(Map.of("w2", 2));
        assertThat(index.contains(M, "w1", 2)).isTrue();
        assertThat(index.contains(M, "w1", 1)).isFalse();
        assertThat(index.residentBlockCounts()).containsExactlyInAnyOrderEntriesOf(Map.of("w1", 1, "w2", 2));
    }

    @Test
    void clearingAWorkerDropsAllItsBlocksAndNothingElse() {
        index.store(M, "w1", h(1, 2, 3));
        index.store("other", "w1", h(4));
        index.store(M, "w2", h(1));

        assertThat(index.clearWorker("w1")).isEqualTo(4);

        assertThat(index.residentBlocks("w1")).isZero();
        assertThat(index.longestPrefixes(M, h(1, 2)).matched()).containsExactlyInAnyOrderEntriesOf(Map.of("w2", 1));
        assertThat(index.distinctBlocks(M)).isEqualTo(1);
        assertThat(index.distinctBlocks("other")).isZero();
    }

    @Test
    void aRemovedWorkersSlotIsReusedWithoutInheritingItsBlocks() {
        index.store(M, "w1", h(1));
        index.store(M, "w2", h(2));
        index.removeWorker("w1");

        index.store(M, "w3", h(3));

        assertThat(index.longestPrefixes(M, h(1)).matched()).isEmpty();
        assertThat(index.longestPrefixes(M, h(3)).matched()).containsExactlyInAnyOrderEntriesOf(Map.of("w3", 1));
        assertThat(index.residentBlockCounts()).containsOnlyKeys("w2", "w3");
    }

    @Test
    void boundDropsTheOldestStoredBlocksFirst() {
        KvBlockIndex small = new KvBlockIndex(3);
        small.store(M, "w1", h(1, 2, 3));
        small.store(M, "w1", h(1)); // refreshes 1: 2 is now the oldest

        assertThat(small.store(M, "w1", h(4))).isEqualTo(1);

        assertThat(small.contains(M, "w1", 2)).isFalse();
        assertThat(small.contains(M, "w1", 1)).isTrue();
        assertThat(small.contains(M, "w1", 4)).isTrue();
        assertThat(small.residentBlocks("w1")).isEqualTo(3);
        assertThat(small.droppedBlocks()).isEqualTo(1);
    }

    @Test
    void handlesMoreWorkersThanOneBitSetWord() {
        for (int w = 0; w < 130; w++) {
            index.store(M, "w" + w, w % 2 == 0 ? h(7, 8) : h(7));
        }

        PrefixMatches m = index.longestPrefixes(M, h(7, 8));

        assertThat(m.matched()).hasSize(130);
        assertThat(m.matched("w128")).isEqualTo(2);
        assertThat(m.matched("w129")).isEqualTo(1);
    }

    @Test
    void concurrentWritersOfDifferentWorkersNeverLoseEachOthersBlocks() throws Exception {
        long[] shared = LongStream.range(0, 2_000).toArray();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                String id = "w" + w;
                futures.add(pool.submit(() -> {
                    for (long hash : shared) {
                        index.store(M, id, h(hash));
                        index.longestPrefixes(M, h(0, 1, 2));
                    }
                    index.remove(M, id, LongStream.range(1_000, 2_000).toArray());
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }

        assertThat(index.residentBlockCounts()).containsExactlyInAnyOrderEntriesOf(
                Map.of("w0", 1_000, "w1", 1_000, "w2", 1_000, "w3", 1_000));
        assertThat(index.distinctBlocks(M)).isEqualTo(1_000);
        assertThat(index.longestPrefixes(M, LongStream.range(0, 1_001).toArray()).matched())
                .containsExactlyInAnyOrderEntriesOf(Map.of("w0", 1_000, "w1", 1_000, "w2", 1_000, "w3", 1_000));
    }

    @Test
    void sinkCallbacksMapToStoreRemoveAndClear() {
        KvEventSink sink = index;
        sink.blocksStored("w1", M, h(1, 2));
        sink.blocksRemoved("w1", M, h(2));
        assertThat(index.residentBlocks("w1")).isEqualTo(1);

        sink.workerCleared("w1");

        assertThat(index.residentBlocks("w1")).isZero();
    }

    @Test
    void rejectsANonPositiveBound() {
        assertThatThrownBy(() -> new KvBlockIndex(0)).hasMessage("maxBlocksPerWorker must be >= 1, was 0");
    }
}
