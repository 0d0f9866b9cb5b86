package dev.caravan.sim.engine.hybrid;

import java.util.Arrays;
import java.util.List;

import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEvent.Medium;
import dev.caravan.sim.kv.KvGroup;

/**
 * Appends one group's {@code BlockStored} events as vLLM's block pool publishes them: the blocks the group just
 * cached, with the tokens of every block from the first one computed and the hash before those as the parent.
 */
final class GroupStores {

    private final int blockSize;
    private final KvGroup[] tags;
    private final List<KvEvent> events;

    GroupStores(int blockSize, KvGroup[] tags, List<KvEvent> events) {
        this.blockSize = blockSize;
        this.tags = tags;
        this.events = events;
    }

    /** One store per run of consecutive {@code fresh} blocks in {@code [from, to)}. */
    void runs(int g, long[] hashes, byte[][] digests, int[] tokens, int from, int to, boolean[] fresh,
              String cacheSalt) {
        int runStart = -1;
        for (int i = from; i <= to; i++) {
            if (i < to && fresh[i]) {
                if (runStart < 0) {
                    runStart = i;
                }
            } else if (runStart >= 0) {
                span(g, hashes, digests, runStart, i, runStart, i, tokens, cacheSalt);
                runStart = -1;
            }
        }
    }

    /**
     * A store naming blocks {@code [from, to)} (possibly none) whose tokens are those of blocks
     * {@code [spanFrom, spanTo)}; the salt goes with block 0 when it is named.
     */
    void span(int g, long[] hashes, byte[][] digests, int from, int to, int spanFrom, int spanTo, int[] tokens,
              String cacheSalt) {
        events.add(new KvEvent.BlockStored(Arrays.copyOfRange(hashes, from, to),
                spanFrom == 0 ? null : hashes[spanFrom - 1],
                Arrays.copyOfRange(tokens, spanFrom * blockSize, spanTo * blockSize), blockSize, Medium.GPU,
                from == 0 && to > 0 ? cacheSalt : null,
                digests == null ? null : Arrays.copyOfRange(digests, from, to),
                digests == null || spanFrom == 0 ? null : digests[spanFrom - 1], tags[g]));
    }
}
