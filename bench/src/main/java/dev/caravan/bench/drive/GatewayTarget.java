package dev.caravan.bench.drive;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

import dev.caravan.bench.PolicySpec;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.sim.SimConfig;

/**
 * The Caravan gateway (in this JVM, built exactly as an embedding application builds it) in front of a fresh simulated
 * fleet, configured with one policy and its options.
 *
 * <p>Options of a {@link PolicySpec} are gateway flags without the leading dashes ({@code cache-threshold=0.5},
 * {@code load-check-interval=1}). The gateway's own timers run on the wall clock while the engines run
 * {@code timeScale} times faster, so unless a run sets them, the two timer settings are divided by the time scale
 * (at least 1 s): {@code --eviction-interval} (cache_aware's tree eviction, 60 s) and {@code --load-check-interval}
 * (the engine-load poll power_of_two uses, 5 s). They then fire at their intended simulated period.
 *
 * <p>Runs that consume KV-cache events ({@code kv_aware}, or {@code kv-calibrate-tree=true}) start engines that publish
 * them on ephemeral ZeroMQ ports and register each engine with its endpoints, as the demo does; the other runs' engines
 * publish nothing, so no policy pays for events it ignores.
 */
public final class GatewayTarget extends SimFleetTarget {

    private final CamelContext context = new DefaultCamelContext();
    private final CaravanGateway gateway;
    private final Map<String, String> settings = new LinkedHashMap<>();

    /** Where an engine binds its KV-event sockets when a run consumes them: a free loopback port each. */
    static final String EPHEMERAL_ZMQ = "tcp://127.0.0.1:*";

    /**
     * Engines hash blocks however they are configured (the simulator's default is a stock vLLM's: {@code sha256} with
     * a random root per engine); the gateway's kv_aware keys blocks by their token ids.
     */
    public GatewayTarget(PolicySpec spec, int engines, SimConfig engine) {
        super(engines, consumesKvEvents(spec)
                ? engine.toBuilder().kvEventsEndpoint(EPHEMERAL_ZMQ).kvReplayEndpoint(EPHEMERAL_ZMQ).build() : engine);
        try {
            boolean kv = consumesKvEvents(spec);
            GatewayConfig config = GatewayConfig.defaults()
                    .with(CaravanFlags.HOST, "127.0.0.1")
                    .with(CaravanFlags.PORT, "0")
                    .with(CaravanFlags.WORKER_URLS, String.join(",", kv ? List.of() : fleet.urls()))
                    .with(CaravanFlags.POLICY_NAME, spec.policy());
            settings.put("policy", spec.policy());
            config = scaled(config, spec, CaravanFlags.EVICTION_INTERVAL, engine.timeScale());
            config = scaled(config, spec, CaravanFlags.LOAD_CHECK_INTERVAL, engine.timeScale());
            if (kv && engine.tokenizer() != null && !spec.options().containsKey("kv-tokenizer")) {
                Path file = Files.isDirectory(engine.tokenizer()) ? engine.tokenizer().resolve("tokenizer.json")
                        : engine.tokenizer();
                config = config.with(CaravanFlags.KV_TOKENIZER, file.toString());
                settings.put("kv-tokenizer", file + " (the engines' tokenizer)");
            }
            for (Map.Entry<String, String> o : spec.options().entrySet()) {
                CaravanFlag flag = flag(o.getKey());
                config = config.with(flag, o.getValue());
                settings.put(o.getKey(), o.getValue());
            }
            gateway = CaravanGateway.install(context, config);
            context.start();
            if (kv) {
                settings.put("kv_events", "engines publish, gateway subscribes");
                fleet.engines().forEach(e -> gateway.workers().add(Worker.builder(e.url()).modelId(e.config().model())
                        .kvEventsEndpoint(e.kvEventsEndpoint()).kvReplayEndpoint(e.kvReplayEndpoint()).build()));
            }
        } catch (Exception e) {
            context.stop();
            fleet.close();
            throw e instanceof RuntimeException r ? r : new IllegalStateException("gateway did not start: " + e, e);
        }
    }

    /** Whether the run's gateway reads the engines' KV-cache events. */
    static boolean consumesKvEvents(PolicySpec spec) {
        return PolicyName.resolve(spec.policy()) == PolicyName.KV_AWARE
                || Boolean.parseBoolean(spec.options().getOrDefault("kv-calibrate-tree", "false"));
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
    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + gateway.port());
    }

    /** The run's settings, and for runs that read KV events what the gateway's index and self-check saw. */
    @Override
    public Map<String, String> settings() {
        if (gateway.beans().kv().ingestor() != null && !gateway.beans().kv().index().residentBlockCounts().isEmpty()) {
            KvBlockIndex index = gateway.beans().kv().index();
            ParityTracker.Snapshot parity = gateway.beans().kv().parity().snapshot();
            long entries = index.residentBlockCounts().values().stream().mapToLong(Integer::longValue).sum();
            settings.put("kv_index", String.format(Locale.ROOT, "%,d entries of %,d distinct keys, %,d orphan blocks, "
                    + "%,d unknown removals, %,d dropped", entries, index.distinctBlocks(), index.orphanBlocks(),
                    index.unknownRemovals(), index.droppedBlocks()));
            settings.put("kv_parity", String.format(Locale.ROOT, "%,d matched, %,d missed, %,d pending",
                    parity.matched(), parity.missed(), parity.pending()));
        }
        return settings;
    }

    @Override
    protected void closeBalancer() {
        context.stop();
    }
}
