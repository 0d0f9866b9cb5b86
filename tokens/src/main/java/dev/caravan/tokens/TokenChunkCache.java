package dev.caravan.tokens;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The token ids of rendered-prompt chunks already encoded ({@link ChunkedEncoder}), least recently used first out,
 * bounded by an estimate of the bytes its entries hold on the heap ({@code --tokens-cache-bytes}). Keys are the chunk's
 * full text with its tokenizer's number, never a hash of it, so a hit is the chunk's own ids. Shared by every model of
 * a gateway; thread-safe (one lock, held for a map operation; encoding happens outside it).
 */
public final class TokenChunkCache {

    /**
     * Default bound: 64 MiB, room for about 2,000 distinct 2 k-token system prompts (a 2,048-token prompt of ~8 k
     * characters takes ~25 KB) besides the recent conversations' turns.
     */
    public static final long DEFAULT_CAPACITY_BYTES = 64L << 20;

    /** Estimated heap bytes of an entry besides its text and ids: key record, strings' and arrays' headers, map node. */
    public static final int ENTRY_OVERHEAD = 136;

    /** A chunk of one tokenizer. */
    private record Key(int tokenizer, String text) {
    }

    private final long capacityBytes;
    private final LinkedHashMap<Key, int[]> entries = new LinkedHashMap<>(1024, 0.75f, true);
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder hitTokens = new LongAdder();
    private final LongAdder missTokens = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private long bytes;
    private int tokenizers;

    /** @param capacityBytes the entries' estimated heap bytes at most; 0 caches nothing */
    public TokenChunkCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacityBytes (--tokens-cache-bytes) must be >= 0, was "
                    + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /** A number for a new tokenizer, keeping its chunks apart from the others'. */
    public synchronized int register() {
        return tokenizers++;
    }

    /** The chunk's ids, or null (counted as a hit or a miss). */
    public int[] get(int tokenizer, String text) {
        int[] ids;
        synchronized (this) {
            ids = capacityBytes == 0 ? null : entries.get(new Key(tokenizer, text));
        }
        if (ids != null) {
            hits.increment();
            hitTokens.add(ids.length);
        } else {
            misses.increment();
        }
        return ids;
    }

    /** Keeps the chunk's ids (the caller's array, never modified after), evicting the least recently used. */
    public void put(int tokenizer, String text, int[] ids) {
        missTokens.add(ids.length);
        long size = sizeOf(text, ids);
        if (size > capacityBytes) {
            return;
        }
        synchronized (this) {
            int[] old = entries.put(new Key(tokenizer, text), ids);
            bytes += size - (old == null ? 0 : sizeOf(text, old));
            Iterator<Map.Entry<Key, int[]>> it = entries.entrySet().iterator();
            while (bytes > capacityBytes && it.hasNext()) {
                Map.Entry<Key, int[]> e = it.next();
                bytes -= sizeOf(e.getKey().text(), e.getValue());
                it.remove();
                evictions.increment();
            }
        }
    }

    /** Estimated heap bytes of one entry: two bytes a character (a Latin-1 string takes half), four an id. */
    static long sizeOf(String text, int[] ids) {
        return ENTRY_OVERHEAD + 2L * text.length() + 4L * ids.length;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    public synchronized long bytes() {
        return bytes;
    }

    public synchronized int size() {
        return entries.size();
    }

    /** Chunks found. */
    public long hits() {
        return hits.sum();
    }

    /** Chunks not found (then encoded). */
    public long misses() {
        return misses.sum();
    }

    /** Tokens taken from the cache. */
    public long hitTokens() {
        return hitTokens.sum();
    }

    /** Tokens encoded on a miss. */
    public long missTokens() {
        return missTokens.sum();
    }

    public long evictions() {
        return evictions.sum();
    }
}
