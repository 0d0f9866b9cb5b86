/**
 * KV-event consumption: {@link dev.caravan.processors.kv.KvEventDecoder} (vLLM's and SGLang's wire formats, both
 * layouts), {@link dev.caravan.processors.kv.SequenceTracker} and {@link dev.caravan.processors.kv.ReplayClient} (gaps,
 * late joins, replay, restarts), {@link dev.caravan.processors.kv.KvEventIngestor} (the per-rank pipeline feeding the
 * block index, then the parity self-check and the tree calibration), {@link dev.caravan.processors.kv.KvRouteManager}
 * (one route per engine rank, data-parallel sizes from {@link dev.caravan.processors.kv.DataParallelSize}), the two
 * route stages {@link dev.caravan.processors.kv.DecodeKvBatchProcessor} and
 * {@link dev.caravan.processors.kv.ApplyKvEventsProcessor}. kv_aware's tokenizers for precise routing against real
 * engines come from the tokens module ({@link dev.caravan.tokens.KvTokenizers}). See docs/kv-events.md.
 */
package dev.caravan.processors.kv;
