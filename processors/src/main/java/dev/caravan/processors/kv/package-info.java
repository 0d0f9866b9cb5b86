/**
 * KV-event consumption: {@link dev.caravan.processors.kv.KvEventDecoder} (vLLM's wire format, both layouts),
 * {@link dev.caravan.processors.kv.SequenceTracker} and {@link dev.caravan.processors.kv.ReplayClient} (gaps, replay,
 * restarts), {@link dev.caravan.processors.kv.KvEventIngestor} (the per-worker pipeline feeding the block index and the
 * parity self-check), the two route stages {@link dev.caravan.processors.kv.DecodeKvBatchProcessor} and
 * {@link dev.caravan.processors.kv.ApplyKvEventsProcessor}, and {@link dev.caravan.processors.kv.HfTokenizer} (a
 * HuggingFace {@code tokenizer.json} through DJL) for precise routing against real engines. See docs/kv-events.md.
 */
package dev.caravan.processors.kv;
