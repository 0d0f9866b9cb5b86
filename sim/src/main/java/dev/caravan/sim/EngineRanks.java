package dev.caravan.sim;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

import dev.caravan.sim.engine.EngineCore;
import dev.caravan.sim.engine.EngineDriver;
import dev.caravan.sim.engine.KvPool;
import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.engine.PrefixCache;
import dev.caravan.sim.engine.TimeModel;
import dev.caravan.sim.engine.hybrid.HybridPrefixCache;
import dev.caravan.sim.engine.hybrid.KvGroupLayout;
import dev.caravan.sim.hash.BlockHashChain;
import dev.caravan.sim.hash.SglangPageHasher;
import dev.caravan.sim.hash.VllmBlockHasher;
import dev.caravan.sim.http.EngineRank;
import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEventEncoder;
import dev.caravan.sim.kv.KvEventPublisher;
import dev.caravan.sim.kv.KvPublisherKind;
import dev.caravan.sim.kv.ZmqEndpoints;

import io.vertx.core.Vertx;

/**
 * Builds one data-parallel rank of an engine, as vLLM starts one engine core per rank: its own KV pool (one group, or
 * one per layer type of a hybrid model) and CPU tier, its own block hasher (SGLang's page chain, or vLLM's algorithm
 * with a root of its own unless seeded), its own scheduler, and its own KV-event publisher on the configured endpoints
 * offset by the rank. The publisher is built but not started.
 */
final class EngineRanks {

    private EngineRanks() {
    }

    static EngineRank build(SimConfig config, Vertx vertx, OutputGenerator output, RandomGenerator roots, int rank) {
        List<KvEvent> events = new ArrayList<>();
        KvGroupLayout groups = config.kvGroupLayout();
        KvPool cache = groups.isSingleGroup()
                ? new PrefixCache(config.blockSize(), config.kvCapacityBlocks(), config.kvOffloadCapacityBlocks(), events)
                : new HybridPrefixCache(config.blockSize(), config.kvCapacityBlocks(), groups.rules(), events);
        KvEventPublisher pub = config.kvEventsEndpoint() == null ? null
                : new KvEventPublisher(ZmqEndpoints.offsetForRank(config.kvEventsEndpoint(), rank),
                ZmqEndpoints.offsetForRank(config.kvReplayEndpoint(), rank), config.kvEventsTopic(),
                new KvEventEncoder(config.kvPublisher(), config.kvEventsLayout(), config.kvEventsIntHashes()),
                config.kvReplayBufferSteps(), rank,
                Clock.systemUTC());
        TimeModel time = new TimeModel(config.prefillTokensPerSec(), config.prefillOverheadMs(),
                config.decodeMsPerToken(), config.kvOffloadLoadTokensPerSec());
        EngineCore core = new EngineCore(time, cache, events, hasher(config, roots), output, config.maxRunning(),
                pub == null ? batch -> { } : pub::publish);
        return new EngineRank(rank, new EngineDriver(vertx, core, config.timeScale(), System::nanoTime), pub);
    }

    private static BlockHashChain hasher(SimConfig config, RandomGenerator roots) {
        if (config.kvPublisher() == KvPublisherKind.SGLANG) {
            return new SglangPageHasher(config.blockSize());
        }
        return new VllmBlockHasher(config.hashAlgo(), config.blockSize(),
                VllmBlockHasher.root(config.hashAlgo(), config.hashSeed(), roots));
    }
}
