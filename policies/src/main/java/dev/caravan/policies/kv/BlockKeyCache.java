package dev.caravan.policies.kv;

import java.util.concurrent.ConcurrentHashMap;

import net.openhft.hashing.LongHashFunction;

/**
 * {@link BlockKeys#keys} with the keys of token chunks already seen reused: requests repeat long prefixes (a system
 * prompt, a conversation's earlier turns, an agent's context), and their block keys need not be hashed again.
 *
 * <p>A request's full blocks are cut into chunks of about {@value #CHUNK_TOKENS} tokens (whole blocks: the largest
 * power of two up to {@code max(1, CHUNK_TOKENS / blockSize)}). Each chunk gets an id chained like the block keys: {@code id_c =
 * xxh3_64(id_{c-1} || xxh3_64(token ids of chunk c))}, {@code id_{-1} = xxh3_64(root || block size)}, so equal ids mean
 * equal roots, block sizes and tokens up to the chunk's end. One pass over the tokens, hashed where they lie in chunks
 * large enough for XXH3's bulk loop, names every chunk whatever the block size; a chunk whose id is cached takes its
 * block keys from the cache, the others hash their blocks ({@link BlockKeys#chain}) and are cached. The keys are the
 * same {@link BlockKeys#keys} gives; a 64-bit id collision would hand one request another prefix's keys, as a key
 * collision would (docs/design/kv-index.md).
 *
 * <p>Bounded per block size: {@value #MAX_KEYS} keys (32 MB) in sets of {@value #WAYS} slots, the set's chunk ids
 * side by side in one cache line. A chunk goes into the first slot of its set and pushes the others down one,
 * evicting the last: the least recently stored. Eight ways keep a working set as large as the bound from thrashing:
 * 64 prompts of 32,768 tokens at page size 1 cycled through the cache miss 4 % of their chunks, against 60 % with two
 * ways and half the slots (a replay of that access pattern). Thread-safe without locks: entries are immutable and
 * published whole (final fields), and a slot's id is only a hint checked against its entry; two threads may both
 * hash a chunk and one entry wins, or an entry is pushed out early.
 */
final class BlockKeyCache {

    /** Tokens per chunk: enough for the chunk hash to run at XXH3's bulk speed. */
    static final int CHUNK_TOKENS = 1024;
    /** Keys held per block size at most (8 bytes each). */
    static final int MAX_KEYS = 1 << 22;
    /** Slots per set. */
    static final int WAYS = 8;
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private record Entry(long id, long[] keys) {
    }

    /** One block size's slots ({@code MAX_KEYS / blocks per chunk}, a power of two) and their ids. */
    private static final class Table {
        final Entry[] entries;
        final long[] ids;

        Table(int slots) {
            entries = new Entry[slots];
            ids = new long[slots];
        }
    }

    /** Block size → its table. */
    private final ConcurrentHashMap<Integer, Table> tables = new ConcurrentHashMap<>(4);

    /**
     * {@link BlockKeys#keys}{@code (tokens, blockSize, root)} as a chain of the cached chunks' arrays (a chunk is a
     * power of two of blocks, so a key is found by a shift).
     */
    KeyChain keys(int[] tokens, int blockSize, long root) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        int n = tokens.length / blockSize;
        int perChunk = Integer.highestOneBit(Math.max(1, CHUNK_TOKENS / blockSize));
        Table table = tables.get(blockSize);
        if (table == null) {
            table = tables.computeIfAbsent(blockSize,
                    b -> new Table(Math.max(WAYS, Integer.highestOneBit(MAX_KEYS / perChunk))));
        }
        Entry[] slots = table.entries;
        long[] ids = table.ids;
        int mask = slots.length - WAYS; // the first slot of a set
        long[][] chunks = new long[(n + perChunk - 1) / perChunk][];
        int[] scratch = null;
        long[] pair = {root, blockSize};
        long id = XXH3.hashLongs(pair);
        long parent = root;
        for (int c = 0, first = 0; first < n; c++, first += perChunk) {
            int blocks = Math.min(perChunk, n - first);
            pair[0] = id;
            pair[1] = XXH3.hashInts(tokens, first * blockSize, blocks * blockSize); // in place, no copy
            id = XXH3.hashLongs(pair);
            int slot = (int) (id ^ (id >>> 32)) & mask;
            Entry e = null;
            for (int way = 0; way < WAYS; way++) {
                if (ids[slot + way] == id) {
                    Entry candidate = slots[slot + way];
                    if (candidate != null && candidate.id() == id && candidate.keys().length == blocks) {
                        e = candidate;
                    }
                    break;
                }
            }
            if (e == null) {
                if (scratch == null) {
                    scratch = new int[2 + blockSize];
                }
                long[] keys = new long[blocks];
                BlockKeys.chain(tokens, first, blocks, blockSize, parent, keys, 0, scratch);
                for (int way = WAYS - 1; way > 0; way--) {
                    slots[slot + way] = slots[slot + way - 1];
                    ids[slot + way] = ids[slot + way - 1];
                }
                e = new Entry(id, keys);
                slots[slot] = e;
                ids[slot] = id;
            }
            chunks[c] = e.keys();
            parent = e.keys()[blocks - 1];
        }
        return KeyChain.ofChunks(chunks, Integer.numberOfTrailingZeros(perChunk), n);
    }
}
