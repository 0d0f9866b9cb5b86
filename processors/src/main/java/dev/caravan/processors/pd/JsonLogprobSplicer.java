package dev.caravan.processors.pd;

import io.vertx.core.buffer.Buffer;

/**
 * Splices prefill's prompt logprobs into a non-streamed decode body: the body is held until it ends (it is one JSON
 * document), then rewritten by {@link LogprobSplice#spliceJson}. A body larger than {@link #MAX_BYTES} is not spliced:
 * what was held is written and the rest passes through. Not thread-safe: one per response.
 */
final class JsonLogprobSplicer implements BodyRewriter {

    /** Bodies above this size pass through unspliced rather than being held in memory. */
    static final int MAX_BYTES = 64 << 20;

    private final PrefillLogprobs prefill;
    private Buffer held = Buffer.buffer();
    private boolean passThrough;

    JsonLogprobSplicer(PrefillLogprobs prefill) {
        this.prefill = prefill;
    }

    @Override
    public Buffer onChunk(Buffer chunk) {
        if (passThrough) {
            return chunk;
        }
        if (held.length() + chunk.length() > MAX_BYTES) {
            passThrough = true;
            Buffer out = held.appendBuffer(chunk);
            held = Buffer.buffer();
            return out;
        }
        held.appendBuffer(chunk);
        return Buffer.buffer();
    }

    @Override
    public Buffer onEnd() {
        if (passThrough) {
            return Buffer.buffer();
        }
        Buffer out = LogprobSplice.spliceJson(held, prefill);
        held = Buffer.buffer();
        return out;
    }
}
