package dev.caravan.sim.engine;

/**
 * How long simulated work takes, in <em>virtual</em> nanoseconds (the engine's own time; the driver divides by the
 * time scale to get wall-clock delays).
 *
 * <ul>
 *   <li>Prefill of a request = {@code overhead + uncachedTokens / prefillTokensPerSec}. Prefills run one after another
 *       on one simulated GPU (a FIFO "prefill lane"), so a replica's prefill throughput is bounded exactly as a real
 *       one's: cached tokens are the only way to go faster.</li>
 *   <li>Prompt tokens found in the CPU offload tier are not recomputed but copied back to the GPU at
 *       {@code offloadLoadTokensPerSec}, added to the prefill: {@value #DEFAULT_OFFLOAD_LOAD_TOKENS_PER_SEC} tokens/s
 *       by default, i.e. 128 KiB of Llama-3-8B KV per token over PCIe Gen5 x16 at ~55 GB/s of pinned host-to-device
 *       bandwidth (64 GB/s peak); against the default prefill rate a CPU hit costs 24,000 / 420,000 = 5.7 % of
 *       prefilling the same tokens.</li>
 *   <li>Decode advances every running request by one token per step of {@code decodeMsPerToken}, on a grid shared by
 *       all requests of the engine (one scheduler step, as in vLLM/SGLang continuous batching).</li>
 * </ul>
 *
 * @param prefillTokensPerSec uncached prompt tokens processed per second
 * @param prefillOverheadMs   fixed cost of every prefill, also paid when the whole prompt is cached
 * @param decodeMsPerToken    duration of one decode step
 * @param offloadLoadTokensPerSec prompt tokens copied back from the CPU tier per second
 */
public record TimeModel(double prefillTokensPerSec, double prefillOverheadMs, double decodeMsPerToken,
                        double offloadLoadTokensPerSec) {

    /** 131,072 bytes of KV per Llama-3-8B token / ~55 GB/s host-to-device ≈ 420,000 tokens/s. */
    public static final double DEFAULT_OFFLOAD_LOAD_TOKENS_PER_SEC = 420_000;

    /** A time model with the default CPU-tier load rate. */
    public TimeModel(double prefillTokensPerSec, double prefillOverheadMs, double decodeMsPerToken) {
        this(prefillTokensPerSec, prefillOverheadMs, decodeMsPerToken, DEFAULT_OFFLOAD_LOAD_TOKENS_PER_SEC);
    }

    public TimeModel {
        if (!(offloadLoadTokensPerSec > 0) || Double.isInfinite(offloadLoadTokensPerSec)) {
            throw new IllegalArgumentException("offloadLoadTokensPerSec must be > 0, was " + offloadLoadTokensPerSec);
        }
        if (!(prefillTokensPerSec > 0) || Double.isInfinite(prefillTokensPerSec)) {
            throw new IllegalArgumentException("prefillTokensPerSec must be > 0, was " + prefillTokensPerSec);
        }
        if (!(prefillOverheadMs >= 0) || Double.isInfinite(prefillOverheadMs)) {
            throw new IllegalArgumentException("prefillOverheadMs must be >= 0, was " + prefillOverheadMs);
        }
        if (!(decodeMsPerToken > 0) || Double.isInfinite(decodeMsPerToken)) {
            throw new IllegalArgumentException("decodeMsPerToken must be > 0, was " + decodeMsPerToken);
        }
    }

    /** Virtual nanoseconds to prefill {@code uncachedTokens}. */
    public long prefillNanos(int uncachedTokens) {
        if (uncachedTokens < 0) {
            throw new IllegalArgumentException("uncachedTokens must be >= 0, was " + uncachedTokens);
        }
        return Math.round(prefillOverheadMs * 1e6 + uncachedTokens * 1e9 / prefillTokensPerSec);
    }

    /** Virtual nanoseconds to prefill {@code uncachedTokens} and load {@code offloadedTokens} from the CPU tier. */
    public long prefillNanos(int uncachedTokens, int offloadedTokens) {
        if (offloadedTokens < 0) {
            throw new IllegalArgumentException("offloadedTokens must be >= 0, was " + offloadedTokens);
        }
        return prefillNanos(uncachedTokens) + Math.round(offloadedTokens * 1e9 / offloadLoadTokensPerSec);
    }

    /** Virtual nanoseconds of one decode step (at least 1). */
    public long decodeStepNanos() {
        return Math.max(1, Math.round(decodeMsPerToken * 1e6));
    }
}
