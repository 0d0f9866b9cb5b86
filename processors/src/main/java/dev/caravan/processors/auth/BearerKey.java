package dev.caravan.processors.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * An API key checked against {@code Authorization: Bearer <key>} headers in constant time: both sides are hashed with
 * SHA-256 and the digests compared with {@link MessageDigest#isEqual}, so neither the content nor the length of the key
 * leaks through timing. The scheme is case-insensitive (RFC 9110 §11.1). The key itself is never exposed by this class
 * ({@link #toString()} masks it).
 */
public final class BearerKey {

    private final byte[] digest;

    /** @param key the expected key; must not be blank */
    public BearerKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("API key must not be blank");
        }
        this.digest = sha256(key);
    }

    /** True when the header carries this key. */
    public boolean matches(String authorization) {
        String token = tokenOf(authorization);
        return MessageDigest.isEqual(digest, sha256(token == null ? "" : token)) && token != null;
    }

    /** The token of a {@code Bearer} header, or null. */
    public static String tokenOf(String authorization) {
        if (authorization == null) {
            return null;
        }
        String h = authorization.trim();
        if (h.length() < 7 || !h.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
            return null;
        }
        return h.substring(7).trim();
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    @Override
    public String toString() {
        return "BearerKey[****]";
    }
}
