package dev.caravan.sim.hash;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * vLLM's prefix-cache block hash ({@code hash_block_tokens} in {@code vllm/v1/core/kv_cache_utils.py}):
 * {@code hash_fn((parent or NONE_HASH, tuple(block_token_ids), extra_keys))}, chained block after block.
 *
 * <ul>
 *   <li>{@code NONE_HASH}, the root ({@code init_none_hash}): {@code hash_fn(PYTHONHASHSEED)} when the seed is set,
 *       else 32 random bytes drawn once per engine process, so an unseeded engine's hashes change at every restart
 *       and differ between engines ({@link #root});</li>
 *   <li>{@code extra_keys}: None, or a tuple; the simulator knows one extra key, the request's {@code cache_salt},
 *       which vLLM folds into the first block only ({@code generate_block_hash_extra_keys});</li>
 *   <li>the id a KV event carries ({@code maybe_convert_block_hash} with vLLM's default
 *       {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1}): the digest's low 64 bits, read big-endian.</li>
 * </ul>
 * Immutable and thread-safe.
 */
public final class VllmBlockHasher implements BlockHashChain {

    /** vLLM's {@code CacheConfig.DEFAULT_BLOCK_SIZE}. */
    public static final int DEFAULT_BLOCK_SIZE = 16;
    /** Bytes of a random root ({@code os.urandom(32)}). */
    public static final int RANDOM_ROOT_BYTES = 32;

    private final HashAlgo algo;
    private final int blockSize;
    private final byte[] root;

    /**
     * @param root {@code NONE_HASH}, see {@link #root}
     */
    public VllmBlockHasher(HashAlgo algo, int blockSize, byte[] root) {
        if (blockSize < 1 || blockSize > 4096) {
            throw new IllegalArgumentException("blockSize must be in [1,4096], was " + blockSize);
        }
        if (algo == null || root == null || root.length == 0) {
            throw new IllegalArgumentException("hash algorithm and a non-empty root are required");
        }
        this.algo = algo;
        this.blockSize = blockSize;
        this.root = root.clone();
    }

    /**
     * {@code NONE_HASH}: {@code algo.hash(seed)} for a seed (vLLM's {@code PYTHONHASHSEED}, a string), else
     * {@value #RANDOM_ROOT_BYTES} bytes from {@code random} (the engine process's {@code os.urandom}).
     */
    public static byte[] root(HashAlgo algo, String seed, RandomGenerator random) {
        if (seed != null) {
            return algo.hash(seed);
        }
        byte[] b = new byte[RANDOM_ROOT_BYTES];
        random.nextBytes(b);
        return b;
    }

    public HashAlgo algo() {
        return algo;
    }

    /** This engine's {@code NONE_HASH}. */
    public byte[] root() {
        return root.clone();
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public byte[] hashBlock(byte[] parent, int[] tokens, int from, String cacheSalt) {
        int[] block = Arrays.copyOfRange(tokens, from, from + blockSize);
        Object extraKeys = from == 0 && cacheSalt != null && !cacheSalt.isEmpty() ? new Object[] {cacheSalt} : null;
        return algo.hash(new Object[] {parent == null ? root : parent, block, extraKeys});
    }

    @Override
    public long external(byte[] digest) {
        long v = 0;
        for (int i = Math.max(0, digest.length - 8); i < digest.length; i++) {
            v = (v << 8) | (digest[i] & 0xff);
        }
        return v;
    }
}
