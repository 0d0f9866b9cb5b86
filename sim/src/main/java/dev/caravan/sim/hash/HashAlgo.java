package dev.caravan.sim.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

import net.openhft.hashing.LongTupleHashFunction;

/**
 * vLLM's {@code --prefix-caching-hash-algo} values ({@code vllm/utils/hashing.py}): a serialisation of the hashed
 * object (Python's pickle at its highest protocol, or canonical CBOR) followed by a digest (SHA-256, 32 bytes, or
 * XXH3-128, 16 bytes in its canonical big-endian form as Python's {@code xxhash.xxh3_128_digest}).
 */
public enum HashAlgo {
    /** vLLM's default: {@code sha256(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))}. */
    SHA256("sha256", false, false),
    /** {@code sha256(cbor2.dumps(obj, canonical=True))}: the cross-language option. */
    SHA256_CBOR("sha256_cbor", true, false),
    /** {@code xxh3_128_digest(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))}. */
    XXHASH("xxhash", false, true),
    /** {@code xxh3_128_digest(cbor2.dumps(obj, canonical=True))}. */
    XXHASH_CBOR("xxhash_cbor", true, true);

    private static final LongTupleHashFunction XXH3_128 = LongTupleHashFunction.xx128();
    /** MessageDigest instances are not thread-safe; one per thread avoids a provider lookup per block. */
    private static final ThreadLocal<MessageDigest> SHA256_DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    });

    private final String wireName;
    private final boolean cbor;
    private final boolean xxhash;

    HashAlgo(String wireName, boolean cbor, boolean xxhash) {
        this.wireName = wireName;
        this.cbor = cbor;
        this.xxhash = xxhash;
    }

    /** The name vLLM's flag takes, e.g. {@code sha256_cbor}. */
    public String wireName() {
        return wireName;
    }

    /** Parses vLLM's flag value ({@code sha256}, {@code sha256_cbor}, {@code xxhash}, {@code xxhash_cbor}). */
    public static HashAlgo parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (HashAlgo a : values()) {
            if (a.wireName.equals(v)) {
                return a;
            }
        }
        throw new IllegalArgumentException("hash-algo must be sha256, sha256_cbor, xxhash or xxhash_cbor, was '"
                + value + "'");
    }

    /** The serialised form of {@code obj} this algorithm digests (see {@link PythonPickle}, {@link CanonicalCbor}). */
    public byte[] serialize(Object obj) {
        return cbor ? CanonicalCbor.encode(obj) : PythonPickle.dumps(obj);
    }

    /** Serialises and digests {@code obj}, as vLLM's hash function of this name does. */
    public byte[] hash(Object obj) {
        byte[] input = serialize(obj);
        if (xxhash) {
            long[] lowHigh = XXH3_128.hashBytes(input);
            byte[] out = new byte[16];
            putLong(out, 0, lowHigh[1]);
            putLong(out, 8, lowHigh[0]);
            return out;
        }
        return SHA256_DIGEST.get().digest(input);
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }
}
