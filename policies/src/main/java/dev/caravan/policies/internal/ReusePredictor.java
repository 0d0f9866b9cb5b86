package dev.caravan.policies.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Predicts whether a <em>fresh</em> prompt (a cache miss: nothing beyond its shared preamble is cached anywhere) will
 * ever be continued, from the history of its <em>context</em>: the shared prefix it branches off (a tenant's or a
 * product's preamble; the empty string when it has none). Used by {@link OneOffSink} to keep prompts predicted one-off
 * away from workers whose caches hold reusable prefixes (docs/design/pollution.md).
 *
 * <p>Every fresh prompt opens a <em>fingerprint</em>: a hash of its first {@code context + }{@value #FINGERPRINT_CHARS}
 * UTF-16 units. A later prompt that matches at least that much of a worker's tree ({@link #continued}) marks the open
 * fingerprint it starts with as reused. A fingerprint closes when it is pushed out of the window of the last
 * {@value #WINDOW} fresh prompts (by default), as <em>reused</em> if it was continued within the window and as
 * <em>one-off</em> otherwise: every prompt is judged at the same age, so prompts continued soon are not counted before
 * the others (which would bias the rate up). A context's reuse rate is reused / closed; its counts are halved at
 * {@value #HALVE_AT} closed prompts so the rate follows the traffic. A context is predicted one-off once
 * {@value #MIN_SAMPLES} of its prompts have closed and fewer than {@value #ONE_OFF_BELOW} of them were reused; unknown
 * contexts are never predicted one-off. Thread-safe (one monitor; only cache misses and hits call it).
 */
final class ReusePredictor {

    /** UTF-16 units beyond the context a fingerprint covers: enough to tell conversations or documents apart. */
    static final int FINGERPRINT_CHARS = 256;
    /**
     * Fresh prompts a fingerprint stays open for: a prompt not continued within this many later fresh prompts counts as
     * one-off. About two of Mooncake's reuse gaps at the median (302 requests), and short enough that a replay of 2,000
     * requests has closed several hundred.
     */
    static final int WINDOW = 512;
    /** Contexts remembered (least recently used dropped). */
    static final int MAX_CONTEXTS = 4096;
    /** Closed prompts a context needs before it is predicted one-off. */
    static final int MIN_SAMPLES = 32;
    /** Closed prompts at which a context's counts are halved. */
    static final int HALVE_AT = 1024;
    /** A context whose reuse rate is below this is predicted one-off: less likely reused than not. */
    static final double ONE_OFF_BELOW = 0.5;

    private static final class Stats {
        long closed;
        long reused;
    }

    private final Map<Long, Stats> contexts = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Stats> eldest) {
            return size() > MAX_CONTEXTS;
        }
    };
    /** An open fresh prompt: its context key and whether it was continued yet. */
    private static final class Open {
        final long context;
        boolean reused;

        Open(long context) {
            this.context = context;
        }
    }

    /** Open fingerprint -> its prompt, in insertion order. */
    private final LinkedHashMap<Long, Open> open = new LinkedHashMap<>(256);
    private final int window;

    ReusePredictor() {
        this(WINDOW);
    }

    /** @param window open fingerprints remembered, &gt;= 1 (tests use small windows) */
    ReusePredictor(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be >= 1, was " + window);
        }
        this.window = window;
    }

    /** Whether a fresh prompt whose context is the first {@code contextChars} UTF-16 units of {@code text} is one-off. */
    synchronized boolean oneOff(String text, int contextChars) {
        Stats s = contexts.get(hash(text, 0, contextChars));
        return s != null && s.closed >= MIN_SAMPLES && s.reused < ONE_OFF_BELOW * s.closed;
    }

    /** Records a fresh prompt routed with the given context length (UTF-16 units). */
    synchronized void fresh(String text, int contextChars) {
        int end = contextChars + FINGERPRINT_CHARS;
        if (text.length() < end) {
            return; // too short to be told apart from its siblings: not learned from
        }
        long context = hash(text, 0, contextChars);
        contexts.computeIfAbsent(context, k -> new Stats());
        open.putIfAbsent(hash(text, 0, end), new Open(context));
        if (open.size() > window) {
            Map.Entry<Long, Open> eldest = open.entrySet().iterator().next();
            open.remove(eldest.getKey());
            close(eldest.getValue().context, eldest.getValue().reused);
        }
    }

    /**
     * A prompt matched {@code matchedChars} UTF-16 units of cached text: if that covers the fingerprint of an open fresh
     * prompt with the given context length, that prompt is marked reused.
     */
    synchronized void continued(String text, int contextChars, long matchedChars) {
        int end = contextChars + FINGERPRINT_CHARS;
        if (matchedChars < end || text.length() < end) {
            return;
        }
        Open o = open.get(hash(text, 0, end));
        if (o != null) {
            o.reused = true;
        }
    }

    /** The reuse rate of the context, or NaN before any of its prompts closed (tests and reports). */
    synchronized double reuseRate(String text, int contextChars) {
        Stats s = contexts.get(hash(text, 0, contextChars));
        return s == null || s.closed == 0 ? Double.NaN : (double) s.reused / s.closed;
    }

    private void close(long context, boolean reused) {
        Stats s = contexts.get(context);
        if (s == null) {
            return; // the context itself was forgotten
        }
        s.closed++;
        if (reused) {
            s.reused++;
        }
        if (s.closed >= HALVE_AT) {
            s.closed >>= 1;
            s.reused >>= 1;
        }
    }

    /** 64-bit FNV-1a over {@code text[from, to)} with the length mixed in. */
    static long hash(String text, int from, int to) {
        long h = 0xcbf29ce484222325L ^ (to - from);
        for (int i = from; i < to; i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }
}
