package dev.caravan.sim.engine.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import dev.caravan.sim.engine.KvPool;
import dev.caravan.sim.kv.KvEvent;

import org.junit.jupiter.api.Test;

class HybridPrefixCacheTest {

    private static final int BS = 4;
    private final List<KvEvent> events = new ArrayList<>();

    private HybridPrefixCache pool(String layout, int capacityBlocks) {
        return new HybridPrefixCache(BS, capacityBlocks, KvGroupLayout.parse(layout, BS).rules(), events);
    }

    /** Hashes {@code from .. to} inclusive, one per full block. */
    private static long[] hashes(long from, long to) {
        return LongStream.rangeClosed(from, to).toArray();
    }

    private static int[] tokens(int n) {
        return IntStream.range(0, n).toArray();
    }

    /** Allocates a request of {@code promptTokens} tokens and {@code maxTokens} output, hit up to promptTokens - 1. */
    private static KvPool.Lease admit(HybridPrefixCache pool, long[] h, int promptTokens, int maxTokens) {
        KvPool.Lease a = pool.allocate(h, null, tokens(promptTokens), (promptTokens - 1) / BS, 
                (promptTokens + maxTokens + BS - 1) / BS, null);
        assertThat(a).isNotNull();
        return a;
    }

    /** Events as "S<group> [hashes] p=<parent> t=<tokens>" and "R<group> [hashes]", drained. */
    private List<String> drain() {
        List<String> out = events.stream().map(e -> {
            if (e instanceof KvEvent.BlockStored s) {
                return "S" + s.group().index() + " " + Arrays.toString(s.blockHashes()) + " p=" + s.parentHash()
                        + " t=" + s.tokenIds().length;
            }
            KvEvent.BlockRemoved r = (KvEvent.BlockRemoved) e;
            return "R" + r.group().index() + " " + Arrays.toString(r.blockHashes());
        }).collect(Collectors.toList());
        events.clear();
        return out;
    }

    @Test
    void slidingWindowFreesBlocksBehindTheWindowWhichStayCachedAndAreEvictedFirst() {
        HybridPrefixCache pool = pool("full+swa:8", 16);
        long[] a = hashes(1, 6);

        KvPool.Lease lease = admit(pool, a, 25, 3);
        assertThat(drain()).containsExactly("S0 [1, 2, 3, 4, 5, 6] p=null t=24", "S1 [1, 2, 3, 4, 5, 6] p=null t=24");
        assertThat(pool.usedBlocks()).isEqualTo(14);

        pool.progress(lease, 25);
        assertThat(pool.usedBlocks()).isEqualTo(10);
        assertThat(pool.evictableBlocks()).isEqualTo(4);
        assertThat(pool.residentBlocks()).isEqualTo(12);

        pool.release(lease, a, null, tokens(25), 6, null);
        assertThat(pool.usedBlocks()).isZero();
        assertThat(pool.evictableBlocks()).isEqualTo(12);

        KvPool.Lease other = admit(pool, hashes(101, 103), 12, 4);
        assertThat(drain()).containsExactly("R1 [4]", "R1 [3]", "R1 [2]", "R1 [1]",
                "S0 [101, 102, 103] p=null t=12", "S1 [101, 102, 103] p=null t=12");
        assertThat(pool.isResident(1, 1)).isFalse();
        assertThat(pool.isResident(0, 1)).isTrue();
        pool.release(other, hashes(101, 103), null, tokens(12), 3, null);

        KvPool.Lease again = admit(pool, a, 25, 3);
        assertThat(again.cachedTokens()).isEqualTo(24);
        assertThat(drain()).isEmpty();
    }

    @Test
    void releaseFreesGroupByGroupLastBlockFirstAndAHeadlessFullGroupMeansNoHit() {
        HybridPrefixCache pool = pool("full+swa:8", 16);
        long[] a = hashes(1, 6);
        KvPool.Lease lease = admit(pool, a, 25, 3);
        pool.release(lease, a, null, tokens(25), 6, null);
        drain();

        KvPool.Lease other = admit(pool, hashes(101, 105), 20, 8);

        assertThat(drain()).containsExactly("R0 [6]", "R0 [5]", "R0 [4]", "R0 [3]", "R0 [2]", "R0 [1]",
                "R1 [6]", "R1 [5]", "R1 [4]", "R1 [3]", "S0 [101, 102, 103, 104, 105] p=null t=20",
                "S1 [101, 102, 103, 104, 105] p=null t=20");
        assertThat(pool.residentBlocks(1)).isEqualTo(7);
        pool.release(other, hashes(101, 105), null, tokens(20), 5, null);
        assertThat(admit(pool, a, 25, 0).cachedTokens()).as("the window holds blocks 1-2, full attention nothing")
                .isZero();
        assertThat(drain()).containsExactly("R0 [105]", "R0 [104]", "R0 [103]", "R0 [102]", "R0 [101]", "R1 [105]",
                "R1 [104]", "R1 [103]", "S0 [1, 2, 3, 4, 5, 6] p=null t=24", "S1 [3, 4, 5, 6] p=2 t=16");
    }

    @Test
    void chunkedLocalAttentionFreesTheFinishedChunksBlocks() {
        HybridPrefixCache pool = pool("full+chunked:8", 32);
        long[] a = hashes(1, 6);
        KvPool.Lease lease = admit(pool, a, 25, 3);
        assertThat(pool.usedBlocks()).isEqualTo(14);

        pool.progress(lease, 25);

        assertThat(pool.usedBlocks()).isEqualTo(8);
        assertThat(pool.evictableBlocks()).isEqualTo(6);
        pool.release(lease, a, null, tokens(25), 6, null);
        assertThat(admit(pool, a, 25, 3).cachedTokens()).isEqualTo(24);
    }

    @Test
    void mambaCachesOnlyStatesAtRetainedBoundariesAndTheReplayBoundary() {
        HybridPrefixCache pool = pool("full+mamba:4:4", 64);
        long[] prompt = hashes(1, 6);

        KvPool.Lease lease = admit(pool, prompt, 25, 8);
        assertThat(drain()).containsExactly("S0 [1, 2, 3, 4, 5, 6] p=null t=24", "S1 [6] p=null t=24");
        assertThat(pool.usedBlocks()).isEqualTo(6 + 3 + 1 + 4);

        pool.progress(lease, 25);
        assertThat(pool.evictableBlocks()).isEqualTo(1);
        pool.release(lease, hashes(1, 8), null, tokens(33), 6, null);

        // block 6 (state at 28) is not a multiple of 4 blocks: a store naming no block; block 7 (at 32) is kept
        assertThat(drain()).containsExactly("S0 [7, 8] p=6 t=8", "S1 [] p=6 t=4", "S1 [8] p=7 t=4");
        assertThat(pool.residentBlocks(1)).isEqualTo(2);
        assertThat(pool.usedBlocks()).isZero();

        assertThat(cached(pool, prompt, 25)).as("the prompt's own state").isEqualTo(24);
        assertThat(cached(pool, hashes(1, 9), 36)).as("the state after the output").isEqualTo(32);
        assertThat(cached(pool, hashes(1, 7), 30)).as("no state at 28: back to 24").isEqualTo(24);
        assertThat(cached(pool, new long[] {1, 2, 3, 4, 5, 66}, 25)).as("no state within 20 tokens").isZero();
    }

    private static int cached(HybridPrefixCache pool, long[] h, int promptTokens) {
        KvPool.Lease a = admit(pool, h, promptTokens, 1);
        pool.release(a, h, null, tokens(promptTokens), h.length, null);
        return a.cachedTokens();
    }

    @Test
    void refusesARequestThePoolCannotHoldAndKeepsItsState() {
        HybridPrefixCache pool = pool("full+swa:8", 10);
        admit(pool, hashes(1, 4), 16, 1);
        drain();

        KvPool.Lease refused = pool.allocate(hashes(11, 13), null, tokens(12), 2, 4, null);

        assertThat(refused).isNull();
        assertThat(drain()).isEmpty();
        assertThat(pool.usedBlocks()).isEqualTo(10);
    }
}
