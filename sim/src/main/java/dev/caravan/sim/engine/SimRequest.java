package dev.caravan.sim.engine;

import java.util.SplittableRandom;

/**
 * One sequence inside the engine: its prompt, its block hashes, and its progress. Created by the HTTP layer and then
 * owned by {@link EngineCore} (single-threaded).
 */
public final class SimRequest {

    /** Where a request is in the engine. */
    public enum State { NEW, WAITING, PREFILL, DECODING, FINISHED, CANCELLED }

    final int[] prompt;
    final long[] hashes;
    final int maxTokens;
    final boolean warm;
    final RequestListener listener;
    final SplittableRandom stream;
    final int[] output;
    int generated;
    State state = State.NEW;
    KvPool.Lease allocation;
    /** Digests of the prompt's full blocks (the ids in {@link #hashes} are derived from them), or null. */
    byte[][] digests;
    /** Digest of the last full prompt block (null if none): the parent of the first output block. */
    byte[] lastDigest;
    /** The request's cache_salt, or null. */
    String cacheSalt;
    long prefillNanos;
    long admittedAt = -1;
    long firstTokenAt = -1;
    long finishedAt = -1;

    /**
     * @param prompt    prompt token ids
     * @param hashes    external hashes of the prompt's full blocks
     * @param maxTokens tokens to generate (0 = prefill only, e.g. embeddings)
     * @param warm      the prompt's KV arrives from a prefill engine: no local prefill, whole prompt counts as cached
     * @param stream    source of the output token ids
     */
    public SimRequest(int[] prompt, long[] hashes, int maxTokens, boolean warm, SplittableRandom stream,
                      RequestListener listener) {
        if (maxTokens < 0) {
            throw new IllegalArgumentException("maxTokens must be >= 0, was " + maxTokens);
        }
        this.prompt = prompt;
        this.hashes = hashes;
        this.maxTokens = maxTokens;
        this.warm = warm;
        this.stream = stream;
        this.listener = listener;
        this.output = new int[maxTokens];
    }

    public State state() {
        return state;
    }

    public int promptTokens() {
        return prompt.length;
    }

    public int[] prompt() {
        return prompt;
    }

    public int maxTokens() {
        return maxTokens;
    }

    public boolean warm() {
        return warm;
    }

    /** Of {@link #cachedTokens()}, the tokens loaded from the CPU offload tier. */
    public int offloadedTokens() {
        return allocation == null || warm ? 0 : allocation.offloadedTokens();
    }

    /** Prompt tokens served from the cache (local prefix hit, or the whole prompt for a warm request). */
    public int cachedTokens() {
        if (allocation == null) {
            return 0;
        }
        return warm ? prompt.length : allocation.cachedTokens();
    }

    public int generated() {
        return generated;
    }

    /** Output token ids generated so far. */
    public int[] outputTokens() {
        return java.util.Arrays.copyOf(output, generated);
    }

    /** Virtual time of admission, first token and finish (-1 until they happen). */
    public long admittedAt() {
        return admittedAt;
    }

    public long firstTokenAt() {
        return firstTokenAt;
    }

    public long finishedAt() {
        return finishedAt;
    }

    /** Virtual prefill duration chosen at admission. */
    public long prefillNanos() {
        return prefillNanos;
    }
}
