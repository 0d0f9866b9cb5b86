package dev.caravan.policies.kv;

/**
 * A request's block keys in chain order, held as the arrays the {@link BlockKeyCache} keeps per token chunk instead of
 * copied into one: a 32k-token prompt at page size 1 has 32,768 keys, and copying them out of the cache (256 KB of
 * reads and as many writes per request) cost more than the whole lookup. Every chunk but the last holds {@code 2^shift}
 * keys. Immutable: the chunks are shared with the cache and never written.
 */
public final class KeyChain {

    private static final KeyChain EMPTY = new KeyChain(new long[][] {new long[0]}, 31, 0);

    private final long[][] chunks;
    private final int shift;
    private final int mask;
    private final int length;

    private KeyChain(long[][] chunks, int shift, int length) {
        this.chunks = chunks;
        this.shift = shift;
        this.mask = shift == 31 ? Integer.MAX_VALUE : (1 << shift) - 1;
        this.length = length;
    }

    /** The keys of one array (not copied: the caller must not change it). */
    public static KeyChain of(long[] keys) {
        return keys.length == 0 ? EMPTY : new KeyChain(new long[][] {keys}, 31, keys.length);
    }

    /** Chunks of {@code 2^shift} keys each but the last; not copied. */
    static KeyChain ofChunks(long[][] chunks, int shift, int length) {
        if (shift < 0 || shift > 30) {
            throw new IllegalArgumentException("shift must be in [0, 30], was " + shift);
        }
        return length == 0 ? EMPTY : new KeyChain(chunks, shift, length);
    }

    /** Number of keys. */
    public int length() {
        return length;
    }

    /** Key {@code i}, {@code 0 <= i < length()}. */
    public long get(int i) {
        return chunks[i >>> shift][i & mask];
    }

    /** Keys {@code [from, to)} in a new array. */
    public long[] copy(int from, int to) {
        if (from < 0 || to > length || from > to) {
            throw new IndexOutOfBoundsException("[" + from + ", " + to + ") of " + length);
        }
        long[] out = new long[to - from];
        int at = 0;
        for (int i = from; i < to; ) {
            long[] chunk = chunks[i >>> shift];
            int offset = i & mask;
            int n = Math.min(to - i, chunk.length - offset);
            System.arraycopy(chunk, offset, out, at, n);
            at += n;
            i += n;
        }
        return out;
    }

    /** Every key in a new array. */
    public long[] toArray() {
        return copy(0, length);
    }

    /**
     * How many leading keys two chains share: keys equal at position i are equal before it (each names its whole
     * prefix), so the first difference is found by bisection.
     */
    static int commonPrefix(KeyChain a, KeyChain b) {
        if (a == b) {
            return a.length;
        }
        int n = Math.min(a.length, b.length);
        if (n == 0 || a.get(0) != b.get(0)) {
            return 0;
        }
        if (a.get(n - 1) == b.get(n - 1)) {
            return n;
        }
        int lo = 0; // equal at lo
        int hi = n - 1; // different at hi
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (a.get(mid) == b.get(mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    @Override
    public String toString() {
        return "KeyChain[" + length + " keys]";
    }
}
