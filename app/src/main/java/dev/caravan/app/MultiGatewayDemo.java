package dev.caravan.app;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.http.GatewayHttpServer;
import dev.caravan.sim.SimFleet;

/**
 * {@code ./caravan demo --gateways N}: N gateway replicas in this process — each a camel-main application as
 * {@code ./caravan run} builds it, on {@code --port}, {@code --port}+1, ... (30000, 30001, 30002 by default; all
 * ephemeral with {@code --port 0}) — over the same simulated engines, each engine registered on every replica with its
 * own {@link dev.caravan.policies.Worker} (own in-flight count and health), as N gateway pods would see them. The
 * banner shows how to compare the replicas' decisions. Ctrl-C (each camel-main's hangup hook) or
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
            GatewayConfig c = base.port() == 0 ? base : base.with(CaravanFlags.PORT, Integer.toString(base.port() + i));
            int metrics = base.getInt(CaravanFlags.PROMETHEUS_PORT);
            if (metrics > 0) { // each replica's own metrics listener, on consecutive ports as the gateways are
                c = c.with(CaravanFlags.PROMETHEUS_PORT, Integer.toString(metrics + i));
            }
            GatewayHttpServer.checkFree(c.host(), c.port()); // a taken port fails before anything starts
            configs.add(c);
        }
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
                System.out.println(banner(List.of(urls), fleet.urls(), model, base.policyName()));
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

    static String banner(List<String> gateways, List<String> engines, String model, String policy) {
        String chat = "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about "
                + "caravans\"}]}";
        List<String> lines = new ArrayList<>(List.of(
                "",
                "Caravan demo: " + gateways.size() + " gateways (policy " + policy + ") in front of " + engines.size()
                        + " simulated engines:",
                "  gateways: " + String.join("  ", gateways),
                "  engines:  " + String.join("  ", engines),
                "Each gateway keeps its own routing state (no --sync): a prompt sent to different gateways may land",
                "on different engines.",
                "",
                "Try:",
                "  # the same prompt through every gateway: compare X-Caravan-Worker (the engine) and X-Caravan-Decision"));
        for (String g : gateways) {
            lines.add("  curl -si " + g + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + chat
                    + "' | grep -i '^x-caravan-'");
        }
        lines.add("  # each gateway's decisions by branch");
        for (String g : gateways) {
            lines.add("  curl -s " + g + "/metrics | grep ^caravan_policy_decisions_total");
        }
        lines.addAll(List.of("", "Ctrl-C stops the gateways and the engines.", ""));
        return String.join("\n", lines);
    }
}
