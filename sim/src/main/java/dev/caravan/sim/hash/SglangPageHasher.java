package dev.caravan.sim.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SGLang's radix-cache page hash ({@code get_hash_str} and {@code hash_str_to_int64} in
 * {@code python/sglang/srt/mem_cache/utils.py}, used by its KV-event mixin): each page's digest is SHA-256 over the
 * previous page's 32-byte digest (nothing for the first page: no seed, no random root) followed by each token id as
 * 4 little-endian bytes; the id a KV event carries is the digest's first 8 bytes read big-endian as a signed 64-bit
 * integer (the first 16 hex characters). Deterministic across processes and restarts. SGLang keeps a request's
 * {@code cache_salt} out of this hash (it travels as event metadata), so the simulator ignores it here.
 * Immutable and thread-safe.
 */
public final class SglangPageHasher implements BlockHashChain {

    /** MessageDigest instances are not thread-safe; one per thread avoids a provider lookup per page. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    });

    private final int pageSize;

    public SglangPageHasher(int pageSize) {
        if (pageSize < 1 || pageSize > 4096) {
            throw new IllegalArgumentException("pageSize must be in [1,4096], was " + pageSize);
        }
        this.pageSize = pageSize;
    }

    @Override
    public int blockSize() {
        return pageSize;
    }

    @Override
    public byte[] hashBlock(byte[] parent, int[] tokens, int from, String cacheSalt) {
        MessageDigest md = SHA256.get();
        if (parent != null) {
            md.update(parent);
        }
        byte[] le = new byte[4 * pageSize];
        for (int i = 0; i < pageSize; i++) {
            int t = tokens[from + i];
            le[4 * i] = (byte) t;
            le[4 * i + 1] = (byte) (t >>> 8);
            le[4 * i + 2] = (byte) (t >>> 16);
            le[4 * i + 3] = (byte) (t >>> 24);
        }
        md.update(le);
        return md.digest();
    }

    @Override
    public long external(byte[] digest) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (digest[i] & 0xff);
        }
        return v;
    }
}
