package dev.caravan.bench.drive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.caravan.bench.PolicySpec;
import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sync.SyncFeature;

/**
 * The Caravan gateway — one, or N replicas ({@link GatewayReplica}) — in front of a fresh simulated fleet, configured
 * with one policy and its options. Every replica gets the same configuration and the same engines (its own port), so
 * N replicas behave as N gateway processes would; in front of them stands the driver's round-robin client (it
 * alternates over {@link #baseUrls()}) or an nginx round-robin upstream ({@link Front}).
 *
 * <p>Options of a {@link PolicySpec} are gateway flags without the leading dashes ({@code cache-threshold=0.5},
 * {@code load-check-interval=1}). The gateway's own timers run on the wall clock while the engines run
 * {@code timeScale} times faster, so unless a run sets them, the two timer settings are divided by the time scale
 * (at least 1 s): {@code --eviction-interval} (cache_aware's tree eviction, 60 s) and {@code --load-check-interval}
 * (the engine-load poll power_of_two uses, 5 s). They then fire at their intended simulated period.
 *
 * <p>With replica sync ({@code sync=hazelcast} among the options, as {@code ./caravan bench --sync hazelcast} sets for
 * the N-replica runs) and no {@code sync-members} of its own, the replicas form one cluster on loopback: each gets a
 * free port chosen up front, the static member list names them all, the cluster name is unique to this run (two
 * benches on one machine never merge) and the hash secret is random. No multicast, as in production.
 *
 * <p>Runs that consume KV-cache events ({@code kv_aware}, or {@code kv-calibrate-tree=true}) start engines that publish
 * them on ephemeral ZeroMQ ports and register each engine with its endpoints on every replica, as the demo does; the
 * other runs' engines publish nothing, so no policy pays for events it ignores.
 */
public final class GatewayTarget extends SimFleetTarget {

    /** Where an engine binds its KV-event sockets when a run consumes them: a free loopback port each. */
    static final String EPHEMERAL_ZMQ = "tcp://127.0.0.1:*";
    private static final String LOOPBACK = "127.0.0.1";

    private final List<GatewayReplica> replicas = new ArrayList<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private NginxProcess nginx;

    /** One gateway, requests sent to it directly. */
    public GatewayTarget(PolicySpec spec, int engines, SimConfig engine) {
        this(spec, engines, engine, 1, Front.CLIENT);
    }

    /**
     * Engines hash blocks however they are configured (the simulator's default is a stock vLLM's: {@code sha256} with
     * a random root per engine); the gateway's kv_aware keys blocks by their token ids.
     *
     * @param gateways replicas to start (at least 1)
     * @param front    what alternates requests over them
     */
    public GatewayTarget(PolicySpec spec, int engines, SimConfig engine, int gateways, Front front) {
        super(engines, consumesKvEvents(spec)
                ? engine.toBuilder().kvEventsEndpoint(EPHEMERAL_ZMQ).kvReplayEndpoint(EPHEMERAL_ZMQ).build() : engine);
        if (gateways < 1) {
            fleet.close();
            throw new IllegalArgumentException("--gateways must be >= 1, was " + gateways);
        }
        try {
            boolean kv = consumesKvEvents(spec);
            GatewayConfig config = config(spec, engine, kv);
            List<SimEngine> kvEngines = kv ? fleet.engines() : List.of();
            if (kv) {
                settings.put("kv_events", "engines publish, every gateway subscribes");
            }
            List<GatewayConfig> perReplica = syncCluster(config, gateways);
            for (GatewayConfig c : perReplica) {
                replicas.add(new GatewayReplica(c, kvEngines)); // in order: each member joins the ones before
            }
            if (gateways > 1) {
                settings.put("gateways", gateways + " replicas, " + front.label() + " round-robin front");
            }
            if (front.kind() == Front.Kind.NGINX) {
                nginx = new NginxProcess(front.nginx(), "", gatewayUrls().stream().map(URI::toString).toList());
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("nginx front did not start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private GatewayConfig config(PolicySpec spec, SimConfig engine, boolean kv) {
        double timeScale = engine.timeScale();
        GatewayConfig config = GatewayConfig.defaults()
                .with(CoreFlags.HOST, "127.0.0.1")
                .with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "-1") // N replicas in one JVM; /metrics stays on each --port
                .with(CoreFlags.WORKER_URLS, String.join(",", kv ? List.of() : fleet.urls()))
                .with(CoreFlags.POLICY_NAME, spec.policy())
                .with(CoreFlags.DECISION_HEADERS, "true"); // the report counts branches by X-Caravan-Decision
        settings.put("policy", spec.policy());
        config = scaled(config, spec, RoutingFeature.EVICTION_INTERVAL, timeScale);
        config = scaled(config, spec, CoreFlags.LOAD_CHECK_INTERVAL, timeScale);
        if (kv && engine.tokenizer() != null) {
            config = engineTokens(config, spec, engine.tokenizer());
        }
        for (Map.Entry<String, String> o : spec.options().entrySet()) {
            config = config.with(flag(o.getKey()), o.getValue());
            settings.put(o.getKey(), o.getValue());
        }
        return config;
    }

    /**
     * One configuration per replica: the same one N times, or with replica sync and no member list of the run's own,
     * each replica's sync member on its own free loopback port, every member listing all of them.
     */
    private List<GatewayConfig> syncCluster(GatewayConfig config, int gateways) {
        if (!CoreFlags.SYNC_HAZELCAST.equals(config.get(CoreFlags.SYNC_MODE))
                || !config.getList(SyncFeature.SYNC_MEMBERS).isEmpty()) {
            return Collections.nCopies(gateways, config);
        }
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < gateways; i++) {
            int port;
            do {
                port = ServerEventLoops.freePort(LOOPBACK);
            } while (ports.contains(port));
            ports.add(port);
        }
        String members = String.join(",", ports.stream().map(p -> LOOPBACK + ":" + p).toList());
        GatewayConfig shared = config.with(SyncFeature.SYNC_HOST, LOOPBACK)
                .with(SyncFeature.SYNC_MEMBERS, members)
                .with(SyncFeature.SYNC_CLUSTER_NAME, "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime())
                .with(SyncFeature.SYNC_SECRET, HexFormat.of().formatHex(secret()));
        settings.put("sync", "hazelcast, " + gateways + " members on loopback (static list, ephemeral ports)");
        return ports.stream().map(p -> shared.with(SyncFeature.SYNC_PORT, Integer.toString(p))).toList();
    }

    private static byte[] secret() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /**
     * Gives kv_aware the engines' own tokens: a model directory (template and tokenizer) as {@code --model-path}, so
     * chat requests are rendered through the template the engines render, and its {@code tokenizer.json} as
     * {@code --kv-tokenizer} for requests without prompt tokens. Options of the spec win.
     */
    private GatewayConfig engineTokens(GatewayConfig config, PolicySpec spec, Path tokenizer) {
        boolean dir = Files.isDirectory(tokenizer);
        if (dir && !spec.options().containsKey("model-path")) {
            config = config.with(TokensFeature.MODEL_PATH, tokenizer.toString());
            settings.put("model-path", tokenizer + " (the engines' model: template and tokenizer)");
        }
        if (!spec.options().containsKey("kv-tokenizer")) {
            Path file = dir ? tokenizer.resolve("tokenizer.json") : tokenizer;
            config = config.with(KvFeature.KV_TOKENIZER, file.toString());
            settings.put("kv-tokenizer", file + " (the engines' tokenizer)");
        }
        return config;
    }

    /** Whether the run's gateway reads the engines' KV-cache events (kv_aware live or as a shadow policy). */
    static boolean consumesKvEvents(PolicySpec spec) {
        return PolicyName.resolve(spec.policy()) == PolicyName.KV_AWARE
                || Boolean.parseBoolean(spec.options().getOrDefault("kv-calibrate-tree", "false"))
                || java.util.Arrays.stream(spec.options().getOrDefault("shadow-policies", "").split("[,\\s]+"))
                        .anyMatch(n -> !n.isBlank() && PolicyName.resolve(n) == PolicyName.KV_AWARE);
    }

    /** The gateway flag named {@code option} (no leading dashes). */
    static CaravanFlag flag(String option) {
        return CaravanFlags.byFlag("--" + option).orElseThrow(() -> new IllegalArgumentException(
                "unknown gateway option '" + option + "' (use a ./caravan run flag name without dashes, e.g. "
                        + "cache-threshold=0.5)"));
    }

    private GatewayConfig scaled(GatewayConfig config, PolicySpec spec, CaravanFlag flag, double timeScale) {
        String option = flag.flag().substring(2);
        if (spec.options().containsKey(option)) {
            return config;
        }
        long seconds = config.getLong(flag);
        if (seconds <= 0 || timeScale == 1.0) {
            return config;
        }
        long wall = Math.max(1, Math.round(seconds / timeScale));
        settings.put(option, wall + " (wall s; " + seconds + " simulated s / time scale)");
        return config.with(flag, Long.toString(wall));
    }

    @Override
    public List<URI> baseUrls() {
        return nginx != null ? List.of(nginx.baseUrl()) : gatewayUrls();
    }

    @Override
    public List<URI> gatewayUrls() {
        return replicas.stream().map(GatewayReplica::baseUrl).toList();
    }

    /** The run's settings, and for runs that read KV events what the first gateway's index and self-check saw. */
    @Override
    public Map<String, String> settings() {
        GatewayReplica first = replicas.isEmpty() ? null : replicas.get(0);
        if (first != null && first.kvIndex() != null && !first.kvIndex().residentBlockCounts().isEmpty()) {
            KvBlockIndex index = first.kvIndex();
            ParityTracker.Snapshot parity = first.kvParity().snapshot();
            long entries = index.residentBlockCounts().values().stream().mapToLong(Integer::longValue).sum();
            settings.put("kv_index", String.format(Locale.ROOT, "%,d entries of %,d distinct keys, %,d orphan blocks, "
                    + "%,d unknown removals, %,d dropped", entries, index.distinctBlocks(), index.orphanBlocks(),
                    index.unknownRemovals(), index.droppedBlocks()));
            settings.put("kv_parity", String.format(Locale.ROOT, "%,d matched, %,d missed, %,d pending",
                    parity.matched(), parity.missed(), parity.pending()));
        }
        return settings;
    }

    /** Stops the front, then every replica (each drains its in-flight requests). */
    @Override
    protected void closeBalancer() {
        RuntimeException failure = null;
        if (nginx != null) {
            nginx.close();
        }
        for (GatewayReplica r : replicas) {
            try {
                r.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
