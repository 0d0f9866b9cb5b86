package dev.caravan.policies.fleet;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

import net.openhft.hashing.LongHashFunction;

/**
 * Turns a routing text into the keyed hashes of its prefixes at geometric boundaries, which replicas share instead of the
 * text (docs/design/replica-sync.md).
 *
 * <p>The text is cut into chunks of {@code chunkChars} UTF-16 chars. A chain state runs over them, unkeyed and fast:
 * {@code s_0 = xxh3(model)}, {@code s_i = mix(s_{i-1} * φ + xxh3(chunk_i))}. Boundaries are after chunks 1, 2, …,
 * {@code linearChunks}, then each about {@code growth} times the previous, and at the end of the text (a shorter final
 * chunk). The value published for a boundary is {@code SipHash-2-4(k, s_i ‖ end)}, a keyed pseudo-random function
 * whose 128-bit key {@code k} is derived from the cluster secret ({@code HMAC-SHA256(secret, "caravan-prefix-key")}):
 * without the key a hash says nothing about the text, and a guessed prompt cannot be confirmed. With the defaults (64, 16, 1.25) a
 * 100,000-char text has 38 boundaries; a shared prefix of {@code n > 1,024} chars is found at a boundary of at least
 * {@code n / 1.25} chars.
 *
 * <p>Thread-safe: one {@link Mac} per thread.
 */
public final class PrefixHasher {

    /** Chars per chunk. */
    public static final int DEFAULT_CHUNK_CHARS = 64;
    /** Chunks with a boundary after each (1,024 chars with the default chunk). */
    public static final int DEFAULT_LINEAR_CHUNKS = 16;
    /** Ratio between successive boundaries beyond the linear part. */
    public static final double DEFAULT_GROWTH = 1.25;

    private static final String HMAC = "HmacSHA256";
    private static final long PHI = 0x9E3779B97F4A7C15L;
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private final int chunkChars;
    private final int linearChunks;
    private final double growth;
    private final SecretKeySpec key;
    private final ThreadLocal<MacState> macs;
    private final SipHash boundaries;

    /** Defaults for chunking, the given HMAC key. */
    public PrefixHasher(byte[] key) {
        this(key, DEFAULT_CHUNK_CHARS, DEFAULT_LINEAR_CHUNKS, DEFAULT_GROWTH);
    }

    /**
     * @throws IllegalArgumentException for an empty key, {@code chunkChars < 1}, {@code linearChunks < 1} or
     *                                  {@code growth <= 1}
     */
    public PrefixHasher(byte[] key, int chunkChars, int linearChunks, double growth) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("the prefix-hash key must not be empty");
        }
        if (chunkChars < 1 || linearChunks < 1 || !(growth > 1.0)) {
            throw new IllegalArgumentException("chunkChars and linearChunks must be >= 1 and growth > 1, were "
                    + chunkChars + ", " + linearChunks + ", " + growth);
        }
        this.chunkChars = chunkChars;
        this.linearChunks = linearChunks;
        this.growth = growth;
        this.key = new SecretKeySpec(key.clone(), HMAC);
        this.macs = ThreadLocal.withInitial(this::newMac);
        MacState derive = newMac();
        derive.mac.update("caravan-prefix-key".getBytes(StandardCharsets.UTF_8));
        this.boundaries = new SipHash(derive.mac.doFinal());
    }

    public int chunkChars() {
        return chunkChars;
    }

    /** The chunk counts after which a boundary falls, for a text of {@code chars} UTF-16 chars (the end excluded). */
    int[] boundaryChunks(int chars) {
        int full = chars / chunkChars;
        int[] out = new int[Math.min(full, linearChunks) + 64];
        int n = 0;
        for (int c = 1; c <= full && c <= linearChunks; c++) {
            out[n++] = c;
        }
        for (int c = nextGeometric(linearChunks); c <= full; c = nextGeometric(c)) {
            if (n == out.length) {
                out = Arrays.copyOf(out, n * 2);
            }
            out[n++] = c;
        }
        return Arrays.copyOf(out, n);
    }

    private int nextGeometric(int c) {
        return Math.max(c + 1, (int) Math.ceil(c * growth));
    }

    /** The text's boundaries under this model (different models never share a hash). */
    public RoutedPrefix digest(String model, String text) {
        int length = text.length();
        int[] chunks = boundaryChunks(length);
        boolean tail = chunks.length == 0 || chunks[chunks.length - 1] * chunkChars != length;
        int n = chunks.length + (tail && length > 0 ? 1 : 0);
        long[] hashes = new long[n];
        int[] codePoints = new int[n];
        long state = XXH3.hashChars(model);
        int chunk = 0;
        int lowSurrogates = 0;
        for (int b = 0; b < n; b++) {
            int end = b < chunks.length ? chunks[b] * chunkChars : length;
            while (chunk * chunkChars < end) {
                int from = chunk * chunkChars;
                int to = Math.min(from + chunkChars, end);
                state = mix(state * PHI + XXH3.hashChars(text, from, to - from));
                lowSurrogates += lowSurrogates(text, from, to);
                chunk++;
            }
            hashes[b] = boundaries.hash(state, end);
            codePoints[b] = end - lowSurrogates;
        }
        // the last boundary is the end of the text, so every chunk was read
        return new RoutedPrefix(hashes, codePoints, length - lowSurrogates);
    }

    /** Low surrogates in {@code [from, to)} that follow a high surrogate: each pair is one code point, not two. */
    private static int lowSurrogates(String text, int from, int to) {
        int count = 0;
        for (int i = Math.max(1, from); i < to; i++) {
            if (Character.isLowSurrogate(text.charAt(i)) && Character.isHighSurrogate(text.charAt(i - 1))) {
                count++;
            }
        }
        return count;
    }

    /** {@code HMAC(key, seed)} as a long: keyed hashes of anything else (routing keys) under the same secret. */
    public long keyed(String value) {
        return macs.get().keyed(value);
    }

    /** Stafford's mix13 (SplitMix64's finaliser): every input bit affects every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private MacState newMac() {
        try {
            Mac m = Mac.getInstance(HMAC);
            m.init(key);
            return new MacState(m);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /** One thread's {@link Mac} and output buffer (keyed hashes of routing keys). */
    private static final class MacState {
        private final Mac mac;
        private final byte[] out;

        MacState(Mac mac) {
            this.mac = mac;
            this.out = new byte[mac.getMacLength()];
        }

        long keyed(String value) {
            mac.update(value.getBytes(StandardCharsets.UTF_8));
            return finish();
        }

        private long finish() {
            try {
                mac.doFinal(out, 0);
            } catch (ShortBufferException e) {
                throw new IllegalStateException(e);
            }
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (out[i] & 0xFF);
            }
            return v;
        }
    }
}
