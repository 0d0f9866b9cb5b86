package dev.caravan.sim;

import java.util.ArrayList;
import java.util.List;

import dev.caravan.sim.kv.ZmqEndpoints;

import io.vertx.core.Vertx;

/**
 * K engines in one process on one shared Vert.x instance. Engine {@code i} gets the base port + i (or an ephemeral
 * port when the base port is 0), bootstrap port + i, KV-event and replay ports + i × data-parallel size (its ranks
 * then take the next ports, as vLLM offsets them), and seed + i. Each engine draws its own random hash root unless
 * a hash seed is set: like separate engine processes.
 */
public final class SimFleet implements AutoCloseable {

    private final Vertx vertx;
    private final List<SimEngine> engines;

    private SimFleet(Vertx vertx, List<SimEngine> engines) {
        this.vertx = vertx;
        this.engines = engines;
    }

    /** Starts {@code count} engines configured from {@code base} and waits until all listen. */
    public static SimFleet start(int count, SimConfig base) {
        if (count < 1 || count > 1024) {
            throw new IllegalArgumentException("count must be in [1,1024], was " + count);
        }
        Vertx vertx = Vertx.vertx();
        List<SimEngine> started = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                started.add(SimEngine.await(SimEngine.start(vertx, configFor(base, i), String.valueOf(i))));
            }
            return new SimFleet(vertx, List.copyOf(started));
        } catch (RuntimeException e) {
            started.forEach(SimEngine::close);
            SimEngine.await(vertx.close());
            throw e;
        }
    }

    /** The configuration of engine {@code i} of a fleet built from {@code base}. */
    public static SimConfig configFor(SimConfig base, int i) {
        return base.toBuilder()
                .port(base.port() == 0 ? 0 : base.port() + i)
                .bootstrapPort(base.bootstrapPort() <= 0 ? base.bootstrapPort() : base.bootstrapPort() + i)
                .kvEventsEndpoint(ZmqEndpoints.offset(base.kvEventsEndpoint(), i * base.dataParallelSize()))
                .kvReplayEndpoint(ZmqEndpoints.offset(base.kvReplayEndpoint(), i * base.dataParallelSize()))
                .seed(base.seed() + i)
                .build();
    }

    public List<SimEngine> engines() {
        return engines;
    }

    public SimEngine engine(int i) {
        return engines.get(i);
    }

    public int size() {
        return engines.size();
    }

    /** Base URLs in engine order. */
    public List<String> urls() {
        return engines.stream().map(SimEngine::url).toList();
    }

    /** Stops every engine and the shared Vert.x instance. */
    @Override
    public void close() {
        for (SimEngine e : engines) {
            e.close();
        }
        SimEngine.await(vertx.close());
    }

}
