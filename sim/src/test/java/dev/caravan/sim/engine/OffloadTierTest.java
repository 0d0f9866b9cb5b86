package dev.caravan.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEvent.Medium;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The CPU offload tier of {@link PrefixCache}: 4 GPU blocks of 4 tokens, 3 CPU blocks. */
class OffloadTierTest {

    private static final int BS = 4;
    private final List<KvEvent> events = new ArrayList<>();
    private PrefixCache cache;

    @BeforeEach
    void setUp() {
        cache = new PrefixCache(BS, 4, 3, events);
    }

    private static long[] hashes(long base, int blocks) {
        return IntStream.rangeClosed(1, blocks).mapToLong(i -> base + i).toArray();
    }

    private static int[] tokens(long base, int blocks) {
        return IntStream.range(0, blocks * BS).map(i -> (int) base + i).toArray();
    }

    /** Runs a prompt of {@code blocks} full blocks to completion (allocate, release). */
    private PrefixCache.Allocation runToEnd(long base, int blocks) {
        long[] h = hashes(base, blocks);
        PrefixCache.Allocation a = cache.allocate(h, tokens(base, blocks), blocks, blocks);
        assertThat(a).isNotNull();
        cache.release(a, h, tokens(base, blocks), blocks);
        return a;
    }

    @Test
    void aBlockEvictedFromTheGpuMovesToTheCpuTierWithItsTokensAndParent() {
        runToEnd(100, 2);
        events.clear();
        runToEnd(200, 3);                                          // needs 3 of 4 GPU blocks: evicts 102 then 101
        assertThat(events).filteredOn(e -> e instanceof KvEvent.BlockRemoved).extracting(e ->
                ((KvEvent.BlockRemoved) e).blockHashes()[0] + "/" + ((KvEvent.BlockRemoved) e).medium())
                .containsExactly("102/GPU");
        KvEvent.BlockStored cpu = events.stream().filter(e -> e instanceof KvEvent.BlockStored s
                && s.medium() == Medium.CPU).map(e -> (KvEvent.BlockStored) e).findFirst().orElseThrow();
        assertThat(cpu.blockHashes()).containsExactly(102L);
        assertThat(cpu.parentHash()).isEqualTo(101L);
        assertThat(cpu.tokenIds()).containsExactly(104, 105, 106, 107);
        assertThat(cache.isOffloaded(102)).isTrue();
        assertThat(cache.isResident(102)).isFalse();
        assertThat(cache.offloadedBlocks()).isEqualTo(1);
    }

    @Test
    void aPrefixHitContinuesIntoTheCpuTierAndLoadsThoseBlocksBack() {
        runToEnd(100, 2);
        runToEnd(200, 3);                                          // 102 now only in the CPU tier
        events.clear();
        long[] h = hashes(100, 2);
        PrefixCache.Allocation a = cache.allocate(h, tokens(100, 2), 2, 2);
        assertThat(a.cachedTokens()).isEqualTo(2 * BS);
        assertThat(a.offloadedTokens()).isEqualTo(BS);
        assertThat(cache.isResident(102)).isTrue();
        assertThat(cache.isOffloaded(102)).as("the CPU copy stays").isTrue();
        assertThat(events).filteredOn(e -> e instanceof KvEvent.BlockStored s && s.medium() == Medium.GPU)
                .extracting(e -> ((KvEvent.BlockStored) e).blockHashes()[0]).containsExactly(102L);
        assertThat(cache.offloadHitTokens()).isEqualTo(BS);
    }

    @Test
    void aFullCpuTierDropsItsLeastRecentlyUsedBlock() {
        runToEnd(100, 4);
        runToEnd(200, 4);                                          // 104..101 move to the CPU tier, 101 dropped
        assertThat(events).filteredOn(e -> e instanceof KvEvent.BlockRemoved r && r.medium() == Medium.CPU)
                .extracting(e -> ((KvEvent.BlockRemoved) e).blockHashes()[0]).containsExactly(104L);
        assertThat(cache.offloadedBlocks()).isEqualTo(3);
        assertThat(cache.isOffloaded(104)).isFalse();
        assertThat(cache.isOffloaded(101)).isTrue();
    }

    @Test
    void clearingDropsBothTiersWithOneEvent() {
        runToEnd(100, 2);
        runToEnd(200, 3);
        events.clear();
        assertThat(cache.clear()).isTrue();
        assertThat(events).containsExactly(new KvEvent.AllBlocksCleared());
        assertThat(cache.offloadedBlocks()).isZero();
        assertThat(cache.residentBlocks()).isZero();
    }

    @Test
    void loadingFromTheCpuTierCostsAFractionOfAPrefill() {
        TimeModel t = new TimeModel(24_000, 0, 8);
        long prefill = t.prefillNanos(4200);
        long loaded = t.prefillNanos(0, 4200);
        assertThat(loaded).isEqualTo(10_000_000L);                 // 4,200 tokens at 420,000 tokens/s
        assertThat((double) loaded / prefill).isCloseTo(24_000.0 / 420_000, org.assertj.core.data.Offset.offset(1e-9));
    }
}
