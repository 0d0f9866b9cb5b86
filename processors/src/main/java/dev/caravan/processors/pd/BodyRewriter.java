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
}
