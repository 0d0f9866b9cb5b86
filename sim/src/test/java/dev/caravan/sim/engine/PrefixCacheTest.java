package dev.caravan.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import dev.caravan.sim.kv.KvEvent;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {

    private static final int BS = 4;
    private final List<KvEvent> events = new ArrayList<>();
    private PrefixCache cache;

    @BeforeEach
    void setUp() {
        cache = new PrefixCache(BS, 8, events);
    }

    /** A prompt of {@code blocks} full blocks whose hashes are {@code base+1 .. base+blocks}. */
    private static long[] hashes(long base, int blocks) {
        return IntStream.rangeClosed(1, blocks).mapToLong(i -> base + i).toArray();
    }

    private static int[] tokens(int n) {
        return IntStream.range(0, n).toArray();
    }

    private PrefixCache.Allocation run(long[] h, int extraBlocks) {
        PrefixCache.Allocation a = cache.allocate(h, tokens(h.length * BS), h.length, h.length + extraBlocks);
        assertThat(a).isNotNull();
        return a;
    }

    private void release(PrefixCache.Allocation a, long[] h) {
        cache.release(a, h, tokens(h.length * BS), h.length);
    }

    @Test
    void secondRequestHitsTheResidentPrefixBlocks() {
        long[] a = hashes(100, 3);
        release(run(a, 0), a);
        long[] b = {101, 102, 903};
        PrefixCache.Allocation second = run(b, 0);
        assertThat(second.cachedTokens()).isEqualTo(2 * BS);
        assertThat(cache.queriedTokens()).isEqualTo(6 * BS);
        assertThat(cache.hitTokens()).isEqualTo(2 * BS);
    }

    @Test
    void storesOnlyTheNewBlocksWithTheirParent() {
        long[] a = hashes(100, 3);
        release(run(a, 0), a);
        events.clear();
        run(new long[] {101, 102, 903}, 0);
        assertThat(events).hasSize(1);
        KvEvent.BlockStored s = (KvEvent.BlockStored) events.get(0);
        assertThat(s.blockHashes()).containsExactly(903);
        assertThat(s.parentHash()).isEqualTo(102L);
        assertThat(s.tokenIds()).containsExactly(8, 9, 10, 11);
    }

    @Test
    void maxHitBlocksCapsTheHitButStillReusesTheResidentBlock() {
        long[] a = hashes(100, 2);
        release(run(a, 0), a);
        events.clear();
        PrefixCache.Allocation again = cache.allocate(a, tokens(8), 1, 2);
        assertThat(again.cachedTokens()).isEqualTo(BS);
        assertThat(events).isEmpty();
        assertThat(cache.residentBlocks()).isEqualTo(2);
    }

    @Test
    void evictsLeastRecentlyUsedUnreferencedBlocksTailFirst() {
        long[] a = hashes(100, 2);
        long[] b = hashes(200, 2);
        long[] c = hashes(300, 2);
        long[] d = hashes(400, 2);
        release(run(a, 0), a);
        release(run(b, 0), b);
        release(run(c, 0), c);
        release(run(d, 0), d);
        release(run(a, 0), a);
        events.clear();
        long[] e = hashes(500, 3);
        run(e, 0);
        List<Long> removed = events.stream().filter(x -> x instanceof KvEvent.BlockRemoved)
                .map(x -> ((KvEvent.BlockRemoved) x).blockHashes()[0]).toList();
        assertThat(removed).containsExactly(202L, 201L, 302L);
        assertThat(cache.isResident(101)).isTrue();
        assertThat(cache.isResident(301)).isTrue();
        assertThat(cache.isResident(302)).isFalse();
    }

    @Test
    void pinnedBlocksAreNeverEvictedAndAFullPoolRefusesAdmission() {
        long[] a = hashes(100, 4);
        PrefixCache.Allocation running = run(a, 2);
        assertThat(cache.usedBlocks()).isEqualTo(6);
        assertThat(cache.allocate(hashes(200, 2), tokens(8), 2, 3)).isNull();
        PrefixCache.Allocation fits = cache.allocate(hashes(200, 2), tokens(8), 2, 2);
        assertThat(fits).isNotNull();
        assertThat(cache.usage()).isEqualTo(1.0);
        assertThat(events).noneMatch(x -> x instanceof KvEvent.BlockRemoved);
        release(running, a);
        assertThat(cache.usedBlocks()).isEqualTo(2);
        assertThat(cache.evictableBlocks()).isEqualTo(4);
    }

    @Test
    void liveRequestsTakeRoomFromTheCache() {
        long[] a = hashes(100, 4);
        release(run(a, 0), a);
        assertThat(cache.residentBlocks()).isEqualTo(4);
        PrefixCache.Allocation live = run(hashes(200, 1), 5);
        assertThat(live.blocks()).isEqualTo(6);
        assertThat(cache.residentBlocks()).isEqualTo(3);
        assertThat(cache.isResident(101)).isTrue();
        assertThat(cache.isResident(102)).isTrue();
        assertThat(cache.isResident(103)).isFalse();
        assertThat(cache.isResident(104)).isFalse();
    }

    @Test
    void releaseCachesTheBlocksTheOutputCompleted() {
        long[] prompt = hashes(100, 1);
        PrefixCache.Allocation a = cache.allocate(prompt, tokens(6), 1, 3);
        events.clear();
        long[] all = {101, 102, 103};
        cache.release(a, all, tokens(12), 1);
        assertThat(events).hasSize(1);
        KvEvent.BlockStored s = (KvEvent.BlockStored) events.get(0);
        assertThat(s.blockHashes()).containsExactly(102, 103);
        assertThat(s.parentHash()).isEqualTo(101L);
        assertThat(s.tokenIds()).containsExactly(Arrays.copyOfRange(tokens(12), 4, 12));
        assertThat(cache.usedBlocks()).isZero();
        assertThat(cache.residentBlocks()).isEqualTo(3);
    }

    @Test
    void clearIsRefusedWhileBlocksAreHeldAndEmitsAllBlocksCleared() {
        long[] a = hashes(100, 2);
        PrefixCache.Allocation live = run(a, 0);
        assertThat(cache.clear()).isFalse();
        release(live, a);
        events.clear();
        assertThat(cache.clear()).isTrue();
        assertThat(events).containsExactly(new KvEvent.AllBlocksCleared());
        assertThat(cache.residentBlocks()).isZero();
    }
}
