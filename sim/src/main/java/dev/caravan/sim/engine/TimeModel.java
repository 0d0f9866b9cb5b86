package dev.caravan.sim.engine;

/**
 * How long simulated work takes, in <em>virtual</em> nanoseconds (the engine's own time; the driver divides by the
 * time scale to get wall-clock delays).
 *
 * <ul>
 *   <li>Prefill of a request = {@code overhead + uncachedTokens / prefillTokensPerSec}. Prefills run one after another
 *       on one simulated GPU (a FIFO "prefill lane"), so a replica's prefill throughput is bounded exactly as a real
 *       one's: cached tokens are the only way to go faster.</li>
 *   <li>Decode advances every running request by one token per step of {@code decodeMsPerToken}, on a grid shared by
 *       all requests of the engine (one scheduler step, as in vLLM/SGLang continuous batching).</li>
 * </ul>
 *
 * @param prefillTokensPerSec uncached prompt tokens processed per second
 * @param prefillOverheadMs   fixed cost of every prefill, also paid when the whole prompt is cached
 * @param decodeMsPerToken    duration of one decode step
 */
public record TimeModel(double prefillTokensPerSec, double prefillOverheadMs, double decodeMsPerToken) {

    public TimeModel {
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

    /** Virtual nanoseconds of one decode step (at least 1). */
    public long decodeStepNanos() {
        return Math.max(1, Math.round(decodeMsPerToken * 1e6));
    }
}
