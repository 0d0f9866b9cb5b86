package dev.caravan.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import dev.caravan.sim.hash.HashAlgo;
import dev.caravan.sim.hash.VllmBlockHasher;
import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.text.SyntheticTokenizer;

import org.junit.jupiter.api.Test;

/** Drives the scheduler with explicit virtual time: no clock, no sleeping. */
class EngineCoreTest {

    private static final long MS = 1_000_000;
    /** 1,000 tokens/s prefill, 1 ms overhead, 10 ms decode steps: easy arithmetic. */
    private static final TimeModel TIME = new TimeModel(1000, 1, 10);

    private static final VllmBlockHasher HASHER = new VllmBlockHasher(HashAlgo.SHA256, 16,
            VllmBlockHasher.root(HashAlgo.SHA256, "0", null));

    private final List<List<KvEvent>> batches = new ArrayList<>();
    private final List<KvEvent> cacheEvents = new ArrayList<>();
    private EngineCore core;

    private EngineCore core(int capacityBlocks, int maxRunning) {
        PrefixCache cache = new PrefixCache(16, capacityBlocks, cacheEvents);
        core = new EngineCore(TIME, cache, cacheEvents, HASHER, new OutputGenerator(7, new SyntheticTokenizer(4)),
                maxRunning, batches::add);
        return core;
    }

    private static long[] hashes(int[] tokens) {
        byte[][] digests = HASHER.digests(tokens, null);
        long[] out = new long[digests.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = HASHER.external(digests[i]);
        }
        return out;
    }

    private static int[] prompt(int n, int base) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = base + i;
        }
        return p;
    }

    /** Records the virtual time of every token. */
    private final class Recorder implements RequestListener {
        final List<Long> tokenTimes = new ArrayList<>();
        long prefilledAt = -1;
        boolean finished;

        @Override
        public void onPrefilled(SimRequest r) {
            prefilledAt = core.now();
        }

        @Override
        public void onToken(SimRequest r, int index, int tokenId) {
            tokenTimes.add(core.now());
        }

        @Override
        public void onFinished(SimRequest r) {
            finished = true;
        }
    }

    @Test
    void firstTokenAfterPrefillThenOneTokenPerDecodeStep() {
        core(1000, 8);
        Recorder rec = new Recorder();
        SimRequest r = core.newRequest(prompt(100, 0), 4, false, 0, rec);
        assertThat(core.submit(r, 0)).isEqualTo(101 * MS);
        core.advance(1_000 * MS);
        assertThat(rec.tokenTimes).containsExactly(101 * MS, 110 * MS, 120 * MS, 130 * MS);
        assertThat(rec.finished).isTrue();
        assertThat(r.state()).isEqualTo(SimRequest.State.FINISHED);
        assertThat(core.nextWakeup()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void cachedPrefixShortensThePrefill() {
        core(1000, 8);
        core.submit(core.newRequest(prompt(160, 0), 1, false, 0, new Recorder()), 0);
        core.advance(1_000 * MS);
        Recorder rec = new Recorder();
        SimRequest second = core.newRequest(prompt(160, 0), 1, false, 0, rec);
        core.submit(second, 1_000 * MS);
        core.advance(2_000 * MS);
        assertThat(second.cachedTokens()).isEqualTo(144);
        assertThat(second.prefillNanos()).isEqualTo(17 * MS);
        assertThat(rec.tokenTimes).containsExactly(1_017 * MS);
    }

    @Test
    void prefillsRunOneAtATimeOnTheLane() {
        core(1000, 8);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        core.submit(core.newRequest(prompt(99, 0), 1, false, 0, a), 0);
        core.submit(core.newRequest(prompt(49, 5_000), 1, false, 0, b), 0);
        core.advance(1_000 * MS);
        assertThat(a.tokenTimes).containsExactly(100 * MS);
        assertThat(b.tokenTimes).containsExactly(150 * MS);
    }

    @Test
    void requestsBeyondMaxRunningWaitFifo() {
        core(1000, 1);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        core.submit(core.newRequest(prompt(9, 0), 2, false, 0, a), 0);
        core.submit(core.newRequest(prompt(9, 100), 1, false, 0, b), 0);
        assertThat(core.running()).isEqualTo(1);
        assertThat(core.waiting()).isEqualTo(1);
        core.advance(1_000 * MS);
        assertThat(a.tokenTimes).containsExactly(10 * MS, 20 * MS);
        assertThat(b.tokenTimes).containsExactly(30 * MS);
    }

    @Test
    void aFullKvPoolHoldsTheQueueUntilBlocksAreReleased() {
        core(4, 8);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        core.submit(core.newRequest(prompt(40, 0), 20, false, 0, a), 0);
        core.submit(core.newRequest(prompt(20, 1000), 1, false, 0, b), 0);
        assertThat(core.waiting()).isEqualTo(1);
        assertThat(core.cache().usage()).isEqualTo(1.0);
        core.advance(1_000 * MS);
        long aDone = a.tokenTimes.get(19);
        assertThat(b.prefilledAt).isEqualTo(aDone + 21 * MS);
    }

    @Test
    void warmRequestSkipsPrefillAndCountsTheWholePromptCached() {
        core(1000, 8);
        Recorder rec = new Recorder();
        SimRequest r = core.newRequest(prompt(64, 0), 2, true, 0, rec);
        core.submit(r, 5 * MS);
        core.advance(1_000 * MS);
        assertThat(rec.prefilledAt).isEqualTo(5 * MS);
        assertThat(rec.tokenTimes).containsExactly(5 * MS, 10 * MS);
        assertThat(r.cachedTokens()).isEqualTo(64);
    }

    @Test
    void cancellingReleasesKvAndLetsTheQueueMove() {
        core(1000, 1);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        SimRequest first = core.newRequest(prompt(100, 0), 100, false, 0, a);
        core.submit(first, 0);
        core.submit(core.newRequest(prompt(10, 900), 1, false, 0, b), 0);
        core.advance(50 * MS);
        core.cancel(first, 50 * MS);
        assertThat(first.state()).isEqualTo(SimRequest.State.CANCELLED);
        assertThat(a.finished).isFalse();
        core.advance(1_000 * MS);
        assertThat(b.tokenTimes).containsExactly(61 * MS);
        assertThat(core.cache().usedBlocks()).isZero();
    }

    @Test
    void publishesOneBatchPerSchedulerStepWithTheStoredBlocks() {
        core(1000, 8);
        core.submit(core.newRequest(prompt(40, 0), 1, false, 0, new Recorder()), 0);
        assertThat(batches).hasSize(1);
        KvEvent.BlockStored s = (KvEvent.BlockStored) batches.get(0).get(0);
        assertThat(s.blockHashes()).containsExactly(hashes(prompt(40, 0)));
        assertThat(s.parentHash()).isNull();
        core.advance(1_000 * MS);
        assertThat(batches).hasSize(1);
    }

    @Test
    void outputBlocksAreCachedWithTheChainedHashOfPromptAndOutput() {
        core(1000, 8);
        SimRequest r = core.newRequest(prompt(20, 0), 20, false, 0, new Recorder());
        core.submit(r, 0);
        core.advance(1_000 * MS);
        int[] all = new int[40];
        System.arraycopy(prompt(20, 0), 0, all, 0, 20);
        System.arraycopy(r.outputTokens(), 0, all, 20, 20);
        long[] expected = hashes(all);
        KvEvent.BlockStored last = (KvEvent.BlockStored) batches.get(batches.size() - 1).get(0);
        assertThat(last.blockHashes()).containsExactly(expected[1]);
        assertThat(last.parentHash()).isEqualTo(expected[0]);
        assertThat(core.cache().isResident(expected[1])).isTrue();
    }
}
