package dev.caravan.sim.http;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.sim.EngineRole;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimStats;
import dev.caravan.sim.engine.EngineDriver;
import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.kv.KvEventPublisher;
import dev.caravan.sim.pd.BootstrapClient;
import dev.caravan.sim.pd.BootstrapEndpoint;
import dev.caravan.sim.pd.RoomRegistry;

import io.vertx.core.Vertx;

/**
 * What the HTTP handlers of one engine share. Everything here is used on the engine's context thread, except the
 * thread-safe stats, faults supplier and clock.
 */
public final class EngineContext {

    final SimConfig config;
    final Vertx vertx;
    final EngineDriver driver;
    final PseudoTokenizer tokenizer;
    final OutputGenerator output;
    final SimStats stats;
    private volatile Faults faults;
    final RoomRegistry rooms;
    final BootstrapEndpoint bootstrap;
    final BootstrapClient bootstrapClient;
    final KvEventPublisher publisher;
    final RandomGenerator random;
    final Clock clock;
    final String engineId;
    private final AtomicLong ids = new AtomicLong();
    private volatile String advertisedHost;
    private volatile int httpPort;
    private volatile int bootstrapPort = -1;

    public EngineContext(SimConfig config, Vertx vertx, EngineDriver driver, PseudoTokenizer tokenizer,
                         OutputGenerator output, SimStats stats, RoomRegistry rooms,
                         BootstrapClient bootstrapClient, KvEventPublisher publisher, RandomGenerator random,
                         Clock clock, String engineId) {
        this.config = config;
        this.vertx = vertx;
        this.driver = driver;
        this.tokenizer = tokenizer;
        this.output = output;
        this.stats = stats;
        this.rooms = rooms;
        this.bootstrap = new BootstrapEndpoint(rooms);
        this.bootstrapClient = bootstrapClient;
        this.publisher = publisher;
        this.random = random;
        this.clock = clock;
        this.engineId = engineId;
        this.advertisedHost = config.host();
        setFaults(config.faults());
    }

    /** Serves a bootstrap-room request if {@code req} is one (see {@link BootstrapEndpoint}). */
    public boolean bootstrapHandles(io.vertx.core.http.HttpServerRequest req) {
        return bootstrap.handle(req);
    }

    /** The faults in force now (thread-safe). */
    public Faults faults() {
        return faults;
    }

    /** Replaces the faults (thread-safe); the KV-event switches take effect on the publisher at once. */
    public void setFaults(Faults f) {
        this.faults = f;
        if (publisher != null) {
            publisher.setStopped(f.stopKvEvents());
            publisher.setDropLive(f.dropKvEvents());
        }
    }

    /** Records the ports actually bound (ephemeral ports resolved). */
    public void bound(String host, int httpPort, int bootstrapPort) {
        this.advertisedHost = host;
        this.httpPort = httpPort;
        this.bootstrapPort = bootstrapPort;
    }

    String nextId(String prefix) {
        return prefix + engineId + "-" + ids.incrementAndGet();
    }

    EngineRole role() {
        return config.role();
    }

    String advertisedHost() {
        return advertisedHost;
    }

    int httpPort() {
        return httpPort;
    }

    /** Port where this engine's bootstrap rooms are served: the bootstrap port if any, else the HTTP port. */
    int roomsPort() {
        return bootstrapPort > 0 ? bootstrapPort : httpPort;
    }

    int bootstrapPort() {
        return bootstrapPort;
    }

    long createdSeconds() {
        return clock.millis() / 1000;
    }
}
