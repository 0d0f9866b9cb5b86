package dev.caravan.processors.kv;

/**
 * One decoded live message: topic frame, sequence frame and payload.
 *
 * @param topic    frame 0 as UTF-8 (vLLM's default topic is empty)
 * @param sequence frame 1, the publisher's unsigned 64-bit batch counter (held in a long; compare with
 *                 {@link Long#compareUnsigned})
 * @param batch    frame 2, decoded
 */
public record KvEventMessage(String topic, long sequence, KvEventBatch batch) {
}
