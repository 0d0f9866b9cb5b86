package dev.caravan.sim.hash;

/**
 * How one engine turns the full blocks of a token sequence into chained block hashes and the 64-bit ids its KV events
 * publish. Each block's digest covers its parent's digest, so a block's hash names its whole prefix.
 * Implementations are immutable and thread-safe.
 */
public interface BlockHashChain {

    /** Tokens per block (vLLM's block size, SGLang's page size). */
    int blockSize();

    /**
     * The digest of the block of {@code blockSize()} tokens starting at {@code tokens[from]}.
     *
     * @param parent    the previous block's digest, or null for the first block of a sequence
     * @param cacheSalt the request's {@code cache_salt}, or null; engines that fold it in do so for the first block only
     */
    byte[] hashBlock(byte[] parent, int[] tokens, int from, String cacheSalt);

    /** The id a KV event carries for a digest. */
    long external(byte[] digest);

    /** The digests of every full block of {@code tokens}, in order (a trailing partial block has none). */
    default byte[][] digests(int[] tokens, String cacheSalt) {
        int n = tokens.length / blockSize();
        byte[][] out = new byte[n][];
        byte[] parent = null;
        for (int b = 0; b < n; b++) {
            parent = hashBlock(parent, tokens, b * blockSize(), cacheSalt);
            out[b] = parent;
        }
        return out;
    }
}
