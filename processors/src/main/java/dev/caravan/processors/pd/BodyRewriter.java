package dev.caravan.processors.pd;

import io.vertx.core.buffer.Buffer;

/**
 * Rewrites a response body as it streams through the relay: gets each upstream chunk and returns what to write to the
 * client now (possibly empty, while it holds back an incomplete unit), then the rest at the end. One instance per
 * response, called on the response's event loop; not thread-safe.
 */
interface BodyRewriter {

    /** The bytes to write now for this upstream chunk. */
    Buffer onChunk(Buffer chunk);

    /** The bytes still held back, once the upstream body has ended. */
    Buffer onEnd();

    /**
     * The rewriter that splices the prefill's prompt logprobs into a decode body of this content type (SSE or JSON), or
     * null when the prefill returned none (the body then passes untouched).
     */
    static BodyRewriter logprobSplicer(LegResult prefill, String decodeContentType) {
        if (prefill.kind() != LegResult.Kind.RESPONSE) {
            return null;
        }
        PrefillLogprobs logprobs = PrefillLogprobs.read(prefill.body());
        if (logprobs.isEmpty()) {
            return null;
        }
        return decodeContentType != null && decodeContentType.contains("event-stream")
                ? new SseLogprobSplicer(logprobs) : new JsonLogprobSplicer(logprobs);
    }
}
