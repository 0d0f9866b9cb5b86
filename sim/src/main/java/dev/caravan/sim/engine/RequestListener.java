package dev.caravan.sim.engine;

/** Callbacks of one simulated request, invoked on the engine's scheduler thread. */
public interface RequestListener {

    /** The prompt's KV is complete (prefill done, or a warm request admitted): a P/D room can be declared ready. */
    default void onPrefilled(SimRequest request) {
    }

    /** One output token; {@code index} counts from 0. */
    void onToken(SimRequest request, int index, int tokenId);

    /** The request finished after generating all its tokens (not called for cancelled requests). */
    void onFinished(SimRequest request);
}
