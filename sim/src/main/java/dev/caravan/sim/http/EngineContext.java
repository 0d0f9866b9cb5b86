package dev.caravan.sim.http;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

import dev.caravan.sim.EngineRole;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimStats;
import dev.caravan.sim.engine.EngineCore;
import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.kv.KvPublisherKind;
import dev.caravan.sim.pd.BootstrapClient;
import dev.caravan.sim.pd.BootstrapEndpoint;
import dev.caravan.sim.pd.RoomRegistry;
import dev.caravan.sim.text.ModelText;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;

/**
 * What the HTTP handlers of one engine share. Everything here is used on the engine's context thread, except the
 * thread-safe stats, faults supplier and clock.
 *
 * <p>Data parallelism: a request runs on one rank ({@link #rankFor}): the one its {@code X-data-parallel-rank} header
 * names (vLLM and SGLang honour it), else, as vLLM's API server does, the rank with the lowest
 * {@code 4 × waiting + running} (ties to the lowest rank); an SGLang-style engine uses SGLang's default round robin.
 */
public final class EngineContext {

    /** The header vLLM's and SGLang's servers read to pin a request to a data-parallel rank. */
    public static final String DP_RANK_HEADER = "X-data-parallel-rank";

    final SimConfig config;
    final Vertx vertx;
    final List<EngineRank> ranks;
    final ModelText text;
    final OutputGenerator output;
    final SimStats stats;
    private volatile Faults faults;
    final RoomRegistry rooms;
    final BootstrapEndpoint bootstrap;
    final BootstrapClient bootstrapClient;
    final RandomGenerator random;
    final Clock clock;
    final String engineId;
    private final AtomicLong ids = new AtomicLong();
    private int nextRoundRobin;
    private volatile String advertisedHost;
    private volatile int httpPort;
    private volatile int bootstrapPort = -1;

    public EngineContext(SimConfig config, Vertx vertx, List<EngineRank> ranks, ModelText text,
                         OutputGenerator output, SimStats stats, RoomRegistry rooms,
                         BootstrapClient bootstrapClient, RandomGenerator random, Clock clock, String engineId) {
        if (ranks.isEmpty()) {
            throw new IllegalArgumentException("an engine needs at least one rank");
        }
        this.config = config;
        this.vertx = vertx;
        this.ranks = List.copyOf(ranks);
        this.text = text;
        this.output = output;
        this.stats = stats;
        this.rooms = rooms;
        this.bootstrap = new BootstrapEndpoint(rooms);
        this.bootstrapClient = bootstrapClient;
        this.random = random;
        this.clock = clock;
        this.engineId = engineId;
        this.advertisedHost = config.host();
        setFaults(config.faults());
    }

    /** Serves a bootstrap-room request if {@code req} is one (see {@link BootstrapEndpoint}). */
    public boolean bootstrapHandles(HttpServerRequest req) {
        return bootstrap.handle(req);
    }

    /** The faults in force now (thread-safe). */
    public Faults faults() {
        return faults;
    }

    /** Replaces the faults (thread-safe); the KV-event switches take effect on every rank's publisher at once. */
    public void setFaults(Faults f) {
        this.faults = f;
        for (EngineRank r : ranks) {
            if (r.publisher() != null) {
                r.publisher().setStopped(f.stopKvEvents());
                r.publisher().setDropLive(f.dropKvEvents());
            }
        }
    }

    /** Records the ports actually bound (ephemeral ports resolved). */
    public void bound(String host, int httpPort, int bootstrapPort) {
        this.advertisedHost = host;
        this.httpPort = httpPort;
        this.bootstrapPort = bootstrapPort;
    }

    /** The rank a request runs on (see the class comment); a bad header is a 400. */
    EngineRank rankFor(HttpServerRequest req) {
        String pinned = req == null ? null : req.getHeader(DP_RANK_HEADER);
        if (pinned != null) {
            int r;
            try {
                r = Integer.parseInt(pinned.trim());
            } catch (NumberFormatException e) {
                throw new BadRequest(DP_RANK_HEADER + " must be an integer, was \"" + pinned + "\"");
            }
            if (r < 0 || r >= ranks.size()) {
                throw new BadRequest("data_parallel_rank " + r + " is out of range [0, " + ranks.size() + ")");
            }
            return ranks.get(r);
        }
        if (ranks.size() == 1) {
            return ranks.get(0);
        }
        if (config.kvPublisher() == KvPublisherKind.SGLANG) {
            EngineRank r = ranks.get(nextRoundRobin);
            nextRoundRobin = (nextRoundRobin + 1) % ranks.size();
            return r;
        }
        EngineRank best = ranks.get(0);
        long bestScore = Long.MAX_VALUE;
        for (EngineRank r : ranks) {
            EngineCore core = r.driver().core();
            long score = 4L * core.waiting() + core.running();
            if (score < bestScore) {
                best = r;
                bestScore = score;
            }
        }
        return best;
    }

    /** Rank 0's scheduler: sizes and limits are the same on every rank. */
    EngineCore core0() {
        return ranks.get(0).driver().core();
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
