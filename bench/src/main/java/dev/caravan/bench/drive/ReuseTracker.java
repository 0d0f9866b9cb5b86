package dev.caravan.bench.drive;

/**
 * The ideal prefix reuse of a workload: how many tokens of each prompt an infinite cache shared by the whole fleet would
 * serve, i.e. the longest run of leading KV blocks that some earlier prompt (or earlier prompt plus its answer) already
 * contained. It is the denominator of the "reuse hit" figure and of G_waste: tokens that were computed before somewhere
 * and are computed again are the waste a router can avoid.
 *
 * <p>Blocks are the engine's: {@code blockTokens} tokens of {@code charsPerToken} characters (workload text is ASCII,
 * so a block is a fixed number of characters), named by a chained 64-bit hash of their characters and all before them
 * (the same prefix-chaining as vLLM's block hashes, without the cost of SHA-256). Like vLLM, at least one prompt token is
 * always recomputed, so a prompt of exactly k blocks can reuse at most k − 1. Thread-safe (synchronised: prompts are
 * admitted by the sender thread, answers remembered by the client's event loop).
 */
public final class ReuseTracker {

    private final int blockChars;
    private final int blockTokens;
    private final int charsPerToken;
    private final LongHashSet seen = new LongHashSet();

    public ReuseTracker(int blockTokens, int charsPerToken) {
        this.blockTokens = blockTokens;
        this.charsPerToken = charsPerToken;
        this.blockChars = blockTokens * charsPerToken;
    }

    /**
     * Records a prompt and returns its reusable tokens: the leading full blocks seen before, capped at
     * {@code (tokens − 1) / blockTokens} blocks.
     */
    public synchronized int admit(String text) {
        int tokens = (text.length() + charsPerToken - 1) / charsPerToken;
        int maxBlocks = tokens == 0 ? 0 : (tokens - 1) / blockTokens;
        int full = text.length() / blockChars;
        long h = 0x6A09E667F3BCC908L;
        int reused = 0;
        boolean matching = true;
        for (int b = 0; b < full; b++) {
            h = chain(h, text, b * blockChars);
            if (matching && b < maxBlocks && seen.contains(h)) {
                reused++;
            } else {
                matching = false;
            }
            seen.add(h);
        }
        return reused * blockTokens;
    }

    /** Records the blocks of a prompt followed by its answer, so that a later turn extending it can reuse them. */
    public synchronized void remember(String text) {
        int full = text.length() / blockChars;
        long h = 0x6A09E667F3BCC908L;
        for (int b = 0; b < full; b++) {
            h = chain(h, text, b * blockChars);
            seen.add(h);
        }
    }

    /** Distinct blocks seen so far. */
    public synchronized int distinctBlocks() {
        return seen.size();
    }

    private long chain(long parent, String text, int from) {
        long h = parent * 0x100000001B3L + 0x9E3779B97F4A7C15L;
        for (int i = from; i < from + blockChars; i++) {
            h = (h ^ text.charAt(i)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
