package dev.caravan.bench.whatif;

import java.util.ArrayList;

import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.Worker;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.engine.EngineCore;
import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.engine.PrefixCache;
import dev.caravan.sim.engine.TimeModel;
import dev.caravan.sim.hash.VllmBlockHasher;
import dev.caravan.sim.text.SyntheticTokenizer;

/**
 * One engine of the what-if replay: the simulator's own scheduler and prefix cache ({@link EngineCore}, the code behind
 * every simulated HTTP engine) driven directly in simulated time, the {@link Worker} the policy sees for it, and the
 * time-weighted in-flight integral. Single-threaded.
 */
final class ModelEngine {

    final int index;
    final Worker worker;
    final EngineCore core;
    final OutputGenerator output;
    /** The next simulated time the core asked to be advanced at ({@link Long#MAX_VALUE} when idle). */
    long nextWake = Long.MAX_VALUE;
    private double inflightIntegral;
    private long integratedFrom = -1;
    private int peak;
    private double markedIntegral;
    private int markedPeak;

    /** The replay's engines hash with a fixed root (seed "0" unless the config sets one): replays stay repeatable. */
    ModelEngine(int index, SimConfig c) {
        this.index = index;
        this.worker = Worker.builder("http://whatif-engine-" + index + ":8000").build();
        this.output = new OutputGenerator(c.seed() + index, new SyntheticTokenizer(c.charsPerToken()));
        String seed = c.hashSeed() == null ? "0" : c.hashSeed();
        this.core = new EngineCore(new TimeModel(c.prefillTokensPerSec(), c.prefillOverheadMs(), c.decodeMsPerToken()),
                new PrefixCache(c.blockSize(), c.kvCapacityBlocks(), new ArrayList<>()), new ArrayList<>(),
                new VllmBlockHasher(c.hashAlgo(), c.blockSize(), VllmBlockHasher.root(c.hashAlgo(), seed, null)),
                output, c.maxRunning(), batch -> { });
    }

    /** Requests in the engine (running + waiting). */
    int inflight() {
        return core.running() + core.waiting();
    }

    /** Starts the in-flight window (the first measured arrival). */
    void startWindow(long now) {
        integratedFrom = now;
        inflightIntegral = 0;
        peak = inflight();
    }

    /** Accounts the in-flight count held since the previous event; call before the state changes at {@code now}. */
    void integrate(long now) {
        if (integratedFrom >= 0) {
            inflightIntegral += (double) inflight() * (now - integratedFrom);
            integratedFrom = now;
        }
    }

    /** Notes the count after the state changed at an event, for the peak. */
    void observe() {
        if (integratedFrom >= 0) {
            peak = Math.max(peak, inflight());
        }
    }

    /** Freezes the window at the latest arrival: the reported figures cover first measured to last arrival. */
    void markArrival() {
        markedIntegral = inflightIntegral;
        markedPeak = peak;
    }

    double inflightMean(long windowStart, long windowEnd) {
        return windowEnd > windowStart ? markedIntegral / (windowEnd - windowStart) : 0;
    }

    int peak() {
        return markedPeak;
    }

    /** Publishes the engine's own load to the worker, as the gateway's load monitor does from /get_load. */
    void pollLoad(long now) {
        worker.setEngineLoad(new EngineLoad(core.liveTokens(), core.running(), core.waiting(), core.cache().usage(),
                now));
    }
}
