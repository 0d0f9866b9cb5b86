package dev.caravan.policies.kv;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * vLLM's {@code sha256_cbor} prefix-cache block hash, reproduced exactly so hashes computed here equal the ones a vLLM
 * engine (or Caravan's simulator) publishes in KV events.
 *
 * <ul>
 *   <li>Only full blocks of {@code blockSize} tokens are hashed; a trailing partial block has no hash.</li>
 *   <li>Root: {@code NONE_HASH = sha256(cbor(seed))}, the seed being the engines' {@code PYTHONHASHSEED} string.</li>
 *   <li>Block i: {@code sha256(cbor([parentDigest, [tokens of block i], null]))}, parentDigest = block i-1's 32-byte
 *       digest (NONE_HASH for block 0), in canonical CBOR (definite lengths, smallest integer heads).</li>
 *   <li>The id in KV events ({@code ExternalBlockHash}) is the digest's last 8 bytes read big-endian: {@link #external}.</li>
 * </ul>
 * Thread-safe: each call uses its own {@link MessageDigest}.
 */
public final class BlockHasher {

    /** vLLM's default block size, in tokens. */
    public static final int DEFAULT_BLOCK_SIZE = 16;
    /** Default seed; llm-d examples use "42", Dynamo's "0". Every engine and the gateway must agree. */
    public static final String DEFAULT_SEED = "0";

    private final int blockSize;
    private final String seed;
    private final byte[] noneHash;

    public BlockHasher() {
        this(DEFAULT_BLOCK_SIZE, DEFAULT_SEED);
    }

    public BlockHasher(int blockSize, String seed) {
        if (blockSize < 1 || blockSize > 4096) {
            throw new IllegalArgumentException("blockSize must be in [1,4096], was " + blockSize);
        }
        if (seed == null) {
            throw new IllegalArgumentException("seed must not be null (use the engines' PYTHONHASHSEED)");
        }
        this.blockSize = blockSize;
        this.seed = seed;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] s = seed.getBytes(StandardCharsets.UTF_8);
        head(out, 3, s.length);
        out.writeBytes(s);
        this.noneHash = sha256().digest(out.toByteArray());
    }

    public int blockSize() {
        return blockSize;
    }

    public String seed() {
        return seed;
    }

    /** The root digest chained into block 0 (a copy). */
    public byte[] noneHash() {
        return noneHash.clone();
    }

    /** Digest of one block given its parent's digest (null for block 0) and tokens[from, from+blockSize). */
    public byte[] hashBlock(byte[] parentDigest, int[] tokens, int from) {
        if (from < 0 || from + blockSize > tokens.length) {
            throw new IllegalArgumentException("block [" + from + "," + (from + blockSize) + ") outside " + tokens.length
                    + " tokens");
        }
        byte[] parent = parentDigest == null ? noneHash : parentDigest;
        ByteArrayOutputStream out = new ByteArrayOutputStream(48 + blockSize * 5);
        out.write(0x83);
        head(out, 2, parent.length);
        out.writeBytes(parent);
        head(out, 4, blockSize);
        for (int i = from; i < from + blockSize; i++) {
            if (tokens[i] < 0) {
                throw new IllegalArgumentException("token ids must be non-negative, was " + tokens[i]);
            }
            head(out, 0, tokens[i]);
        }
        out.write(0xf6);
        return sha256().digest(out.toByteArray());
    }

    /** Full digests of every full block of {@code tokens}, in order. */
    public byte[][] digests(int[] tokens) {
        int n = tokens.length / blockSize;
        byte[][] out = new byte[n][];
        byte[] parent = null;
        for (int b = 0; b < n; b++) {
            parent = hashBlock(parent, tokens, b * blockSize);
            out[b] = parent;
        }
        return out;
    }

    /** External (KV-event) ids of every full block of {@code tokens}, in order. */
    public long[] hashes(int[] tokens) {
        byte[][] d = digests(tokens);
        long[] out = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            out[i] = external(d[i]);
        }
        return out;
    }

    /** A digest's KV-event id: its last 8 bytes, big-endian, as the 64 bits of a long (unsigned in events). */
    public static long external(byte[] digest) {
        long v = 0;
        int start = Math.max(0, digest.length - 8);
        for (int i = start; i < digest.length; i++) {
            v = (v << 8) | (digest[i] & 0xff);
        }
        return v;
    }

    /** Canonical CBOR head: major type and argument with the smallest encoding. */
    private static void head(ByteArrayOutputStream out, int major, long value) {
        int mt = major << 5;
        if (value < 24) {
            out.write(mt | (int) value);
        } else if (value < 0x100) {
            out.write(mt | 24);
            out.write((int) value);
        } else if (value < 0x10000) {
            out.write(mt | 25);
            out.write((int) (value >>> 8));
            out.write((int) value & 0xff);
        } else if (value < 0x100000000L) {
            out.write(mt | 26);
            for (int s = 24; s >= 0; s -= 8) {
                out.write((int) (value >>> s) & 0xff);
            }
        } else {
            out.write(mt | 27);
            for (int s = 56; s >= 0; s -= 8) {
                out.write((int) (value >>> s) & 0xff);
            }
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
