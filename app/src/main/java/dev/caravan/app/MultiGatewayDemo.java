package dev.caravan.app;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.sim.SimFleet;
import dev.caravan.sync.SyncFeature;

/**
 * {@code ./caravan demo --gateways N}: N gateway replicas in this process — each a camel-main application as
 * {@code ./caravan run} builds it, on {@code --port}, {@code --port}+1, ... (30000, 30001, 30002 by default; all
 * ephemeral with {@code --port 0}) — over the same simulated engines, each engine registered on every replica with its
 * own {@link dev.caravan.policies.Worker} (own in-flight count and health), as N gateway pods would see them.
 *
 * <p>Replica sync is on unless the flags say {@code --sync none}: each replica's Hazelcast member listens on
 * {@code --sync-port}+i (5701, 5702, 5703 by default; free ports picked up front with {@code --sync-port 0} or
 * {@code --port 0}) on loopback, and the static member list names them all (never multicast). Unless given, the hash
 * secret is random per demo. The banner shows how to see the replicas agree (the same engine for a prompt sent to
 * different gateways) and their {@code caravan_sync_*} metrics. Ctrl-C (each camel-main's hangup hook) or
 * {@link DemoMain.Running#stop()} stops every replica (in-flight requests finish), then the engines.
 */
final class MultiGatewayDemo {

    /** More replicas than this on one machine demonstrate nothing more. */
    static final int MAX_GATEWAYS = 9;

    private static final Logger LOG = LoggerFactory.getLogger(MultiGatewayDemo.class);

    private MultiGatewayDemo() {
    }

    static void run(int gateways, ConfigResolver.Resolved resolved, Path modelDir, int engines,
                    Consumer<DemoMain.Running> onStarted) throws Exception {
        GatewayConfig base = resolved.config();
        List<GatewayConfig> configs = new ArrayList<>();
        for (int i = 0; i < gateways; i++) {
            GatewayConfig c = base.port() == 0 ? base : base.with(CoreFlags.PORT, Integer.toString(base.port() + i));
            int metrics = base.getInt(MetricsFeature.PROMETHEUS_PORT);
            if (metrics > 0) { // each replica's own metrics listener, on consecutive ports as the gateways are
                c = c.with(MetricsFeature.PROMETHEUS_PORT, Integer.toString(metrics + i));
            }
            GatewayHttpServer.checkFree(c.host(), c.port()); // a taken port fails before anything starts
            configs.add(c);
        }
        configs = syncCluster(configs);
        try (SimFleet fleet = SimFleet.start(engines, DemoMain.engineConfig(modelDir)
                .kvEventsEndpoint(DemoMain.EPHEMERAL_ZMQ).kvReplayEndpoint(DemoMain.EPHEMERAL_ZMQ).build())) {
            List<Main> mains = new ArrayList<>();
            String[] urls = new String[gateways];
            CountDownLatch started = new CountDownLatch(gateways);
            for (int i = 0; i < gateways; i++) {
                // a fresh Worker per replica: each replica counts its own in-flight requests, as separate pods do
                Main main = GatewayMain.create(configs.get(i), resolved.others(), DemoMain.workers(fleet));
                main.addOverrideProperty("camel.main.name", "caravan-" + i);
                int index = i;
                main.addMainListener(new MainListenerSupport() {
                    @Override
                    public void afterStart(BaseMainSupport m) {
                        urls[index] = "http://" + DemoMain.DEMO_HOST + ":" + CaravanGateway.port(m.getCamelContext());
                        started.countDown();
                    }
                });
                mains.add(main);
            }
            List<CompletableFuture<Void>> ended = new ArrayList<>();
            for (int i = 0; i < gateways; i++) {
                ended.add(runOnThread(mains.get(i), "caravan-demo-gateway-" + i, started));
            }
            started.await();
            CompletableFuture<Void> all = CompletableFuture.allOf(ended.toArray(CompletableFuture[]::new));
            Throwable failure = ended.stream().filter(CompletableFuture::isCompletedExceptionally).findFirst()
                    .map(f -> f.handle((v, e) -> e).join()).orElse(null);
            if (failure == null) {
                String model = fleet.engine(0).config().model();
                System.out.println(banner(List.of(urls), fleet.urls(), model, base.policyName(),
                        syncing(configs.get(0))));
                onStarted.accept(new DemoMain.Running(List.of(urls), fleet.urls(), mains));
            } else {
                mains.forEach(Main::completed);
            }
            all.handle((v, e) -> null).join();
            if (failure != null) {
                throw failure instanceof Exception e ? e : new IllegalStateException(failure);
            }
        }
    }

    /** Adds {@code --sync hazelcast} unless the flags already choose a sync mode. */
    static void withSync(List<String> gatewayArgs) {
        boolean given = gatewayArgs.stream().anyMatch(a -> a.equals("--sync") || a.startsWith("--sync="));
        if (!given) {
            gatewayArgs.add("--sync");
            gatewayArgs.add(CoreFlags.SYNC_HAZELCAST);
        }
    }

    private static boolean syncing(GatewayConfig c) {
        return CoreFlags.SYNC_HAZELCAST.equals(c.get(CoreFlags.SYNC_MODE));
    }

    /**
     * With sync and no member list of the user's, one loopback cluster: replica i's member on {@code --sync-port}+i
     * (free ports with port 0), every member listing all; a random secret unless one is given.
     */
    static List<GatewayConfig> syncCluster(List<GatewayConfig> configs) {
        GatewayConfig base = configs.get(0);
        if (!syncing(base) || !base.getList(SyncFeature.SYNC_MEMBERS).isEmpty()
                || base.getBoolean(SyncFeature.SYNC_KUBERNETES)) {
            return configs;
        }
        int first = base.getInt(SyncFeature.SYNC_PORT);
        boolean ephemeral = first == 0 || base.port() == 0;
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            int port;
            if (ephemeral) {
                do {
                    port = ServerEventLoops.freePort(DemoMain.DEMO_HOST);
                } while (ports.contains(port));
            } else {
                port = first + i;
                GatewayHttpServer.checkFree(DemoMain.DEMO_HOST, port); // a taken sync port fails before anything starts
            }
            ports.add(port);
        }
        String members = String.join(",", ports.stream().map(p -> DemoMain.DEMO_HOST + ":" + p).toList());
        String secret = base.isSet(SyncFeature.SYNC_SECRET) ? base.get(SyncFeature.SYNC_SECRET) : randomSecret();
        List<GatewayConfig> out = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            out.add(configs.get(i).with(SyncFeature.SYNC_HOST, DemoMain.DEMO_HOST)
                    .with(SyncFeature.SYNC_PORT, Integer.toString(ports.get(i)))
                    .with(SyncFeature.SYNC_MEMBERS, members)
                    .with(SyncFeature.SYNC_SECRET, secret));
        }
        return out;
    }

    private static String randomSecret() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * Runs {@code main} until it is completed; a start failure counts the latch down too (so the caller stops waiting)
     * and completes the future exceptionally.
     */
    private static CompletableFuture<Void> runOnThread(Main main, String name, CountDownLatch started) {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                main.run();
                ended.complete(null);
            } catch (Throwable e) {
                LOG.debug("{} failed", name, e);
                ended.completeExceptionally(e);
                while (started.getCount() > 0) {
                    started.countDown();
                }
            }
        }, name);
        t.start();
        return ended;
    }

    static String banner(List<String> gateways, List<String> engines, String model, String policy, boolean sync) {
        String chat = "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about "
                + "caravans\"}]}";
        List<String> lines = new ArrayList<>(List.of(
                "",
                "Caravan demo: " + gateways.size() + " gateways (policy " + policy + ") in front of " + engines.size()
                        + " simulated engines:",
                "  gateways: " + String.join("  ", gateways),
                "  engines:  " + String.join("  ", engines)));
        if (sync) {
            lines.addAll(List.of(
                    "The gateways sync (--sync hazelcast, members on loopback): a prompt one gateway routed goes to the",
                    "same engine through the others (X-Caravan-Decision cache_hit_peer when a peer's decision decided)."));
        } else {
            lines.addAll(List.of(
                    "Each gateway keeps its own routing state (--sync none): a prompt sent to different gateways may land",
                    "on different engines."));
        }
        lines.addAll(List.of("", "Try:",
                "  # the same prompt through every gateway: compare X-Caravan-Worker (the engine) and X-Caravan-Decision"));
        for (String g : gateways) {
            lines.add("  curl -si " + g + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + chat
                    + "' | grep -i '^x-caravan-'");
        }
        lines.add("  # each gateway's decisions by branch");
        for (String g : gateways) {
            lines.add("  curl -s " + g + "/metrics | grep ^caravan_policy_decisions_total");
        }
        if (sync) {
            lines.add("  # the sync: members (should be " + gateways.size() + "), messages, lag p50/p99, drops");
            lines.add("  curl -s " + gateways.get(0) + "/metrics | grep ^caravan_sync_");
        }
        lines.addAll(List.of("", "Ctrl-C stops the gateways and the engines.", ""));
        return String.join("\n", lines);
    }
}
