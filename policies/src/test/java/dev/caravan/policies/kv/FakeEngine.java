package dev.caravan.policies.kv;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * An engine as the index sees it: it names each cached block with an id of its own (here a per-engine random
 * function of the whole prefix, as a random-rooted vLLM sha256 chain is) and publishes {@code BlockStored} events with
 * the blocks' tokens. Two engines name the same content differently.
 */
final class FakeEngine {

    private final long salt;
    private final int blockSize;

    FakeEngine(long seed, int blockSize) {
        this.salt = new SplittableRandom(seed).nextLong();
        this.blockSize = blockSize;
    }

    /** The engine's id of block {@code b} of {@code tokens} (depends on the whole prefix, like a chained hash). */
    long id(int[] tokens, int b) {
        long h = salt;
        for (int i = 0; i < (b + 1) * blockSize; i++) {
            h = (h ^ tokens[i]) * 0x100000001B3L;
            h ^= h >>> 29;
        }
        return h;
    }

    /** BlockStored for blocks [from, to) of {@code tokens}, with the parent the engine would name. */
    KvEvent.BlockStored stored(int[] tokens, int from, int to) {
        return stored(tokens, from, to, "GPU", null, null);
    }

    KvEvent.BlockStored stored(int[] tokens, int from, int to, String medium, Integer group, String kind) {
        long[] ids = new long[to - from];
        for (int b = from; b < to; b++) {
            ids[b - from] = id(tokens, b);
        }
        Long parent = from == 0 ? null : id(tokens, from - 1);
        return new KvEvent.BlockStored(ids, parent, Arrays.copyOfRange(tokens, from * blockSize, to * blockSize),
                blockSize, medium, null, null, null, group, kind);
    }

    KvEvent.BlockRemoved removed(int[] tokens, int b) {
        return new KvEvent.BlockRemoved(new long[] {id(tokens, b)}, "GPU", null);
    }

    static int[] tokens(int from, int count) {
        int[] t = new int[count];
        for (int i = 0; i < count; i++) {
            t[i] = from + i;
        }
        return t;
    }
}
