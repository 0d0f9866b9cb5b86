package dev.caravan.policies.kv;

import java.nio.ByteOrder;

import net.openhft.hashing.LongHashFunction;

/**
 * {@link BlockKeys#keys} with the keys of token chunks already seen reused: requests repeat long prefixes (a system
 * prompt, a conversation's earlier turns), and their block keys need not be hashed again.
 *
 * <p>A request's full blocks are cut into chunks of {@value #BLOCKS_PER_CHUNK} blocks. Each chunk gets an id chained
 * like the block keys: {@code id_c = xxh3_64(id_{c-1} || xxh3_64(token ids of chunk c))}, {@code id_{-1} =
 * xxh3_64(root || block size)}, so equal ids mean equal roots, block sizes and tokens up to the chunk's end, and one
 * pass over the tokens, hashed where they lie, names every chunk (one hash per chunk instead of one per block). A chunk whose id is cached takes its block
 * keys from the cache; the others hash their blocks ({@link BlockKeys#chain}) and are cached. The keys are the same
 * {@link BlockKeys#keys} gives; a 64-bit id collision would hand one request another prefix's keys, as a key collision
 * would (docs/design/kv-index.md).
 *
 * <p>Bounded: {@value #SLOTS} slots, direct-mapped by id (a new chunk replaces the one in its slot), each at most
 * {@value #BLOCKS_PER_CHUNK} keys: at most about 9 MB. Thread-safe without locks: entries are immutable and published
 * whole (final fields); two threads may both hash a chunk and one entry wins.
 */
final class BlockKeyCache {

    static final int BLOCKS_PER_CHUNK = 64;
    static final int SLOTS = 1 << 14;
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private record Entry(long id, long[] keys) {
    }

    private final Entry[] slots = new Entry[SLOTS];

    /** {@link BlockKeys#keys}{@code (tokens, blockSize, root)}. */
    long[] keys(int[] tokens, int blockSize, long root) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        int n = tokens.length / blockSize;
        long[] out = new long[n];
        if (!LITTLE_ENDIAN) {
            BlockKeys.chain(tokens, 0, n, blockSize, root, out, 0, new int[2 + blockSize]);
            return out;
        }
        int[] scratch = null;
        long[] pair = {root, blockSize};
        long id = XXH3.hashLongs(pair);
        long parent = root;
        for (int first = 0; first < n; first += BLOCKS_PER_CHUNK) {
            int blocks = Math.min(BLOCKS_PER_CHUNK, n - first);
            pair[0] = id;
            pair[1] = XXH3.hashInts(tokens, first * blockSize, blocks * blockSize); // in place, no copy
            id = XXH3.hashLongs(pair);
            int slot = (int) (id ^ (id >>> 32)) & (SLOTS - 1);
            Entry e = slots[slot];
            if (e != null && e.id() == id && e.keys().length == blocks) {
                System.arraycopy(e.keys(), 0, out, first, blocks);
                parent = out[first + blocks - 1];
            } else {
                if (scratch == null) {
                    scratch = new int[2 + blockSize];
                }
                parent = BlockKeys.chain(tokens, first, blocks, blockSize, parent, out, first, scratch);
                long[] keys = new long[blocks];
                System.arraycopy(out, first, keys, 0, blocks);
                slots[slot] = new Entry(id, keys);
            }
        }
        return out;
    }
}
