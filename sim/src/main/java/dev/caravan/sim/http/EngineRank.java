package dev.caravan.sim.http;

import dev.caravan.sim.engine.EngineDriver;
import dev.caravan.sim.kv.KvEventPublisher;

/**
 * One data-parallel rank of an engine: its own scheduler and KV cache ({@code driver}) and its own KV-event publisher
 * (null without KV events), as each vLLM DP rank is an engine core of its own.
 *
 * @param index     the rank, {@code data_parallel_rank} in its events
 * @param driver    the rank's scheduler in real time
 * @param publisher the rank's KV-event publisher, or null
 */
public record EngineRank(int index, EngineDriver driver, KvEventPublisher publisher) {
}
