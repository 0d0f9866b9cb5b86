package dev.caravan.it.kv;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.MetricsText;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.tree.ApproximateRadixTree;
import dev.caravan.policies.tree.PrefixMatch;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * Measures how well cache_aware's approximate tree tracks what engines really cache (SGLang's {@code max_tree_size}
 * defaults are four orders of magnitude apart and neither follows the engine's pool; docs/design/upstream.md, "SGLang:
 * cache_aware"), for three settings:
 * SGLang's Python default (2^26 chars per worker), SGLang's Rust default (10,000), and Caravan's event calibration
 * ({@code --kv-calibrate-tree --max-tree-size auto}).
 *
 * <p>Workload: simulated engines with a small KV pool, many tenants each with a shared system prompt, requests sent one
 * at a time with a uniformly random tenant and a unique question, so the pool cannot hold every tenant and engines
 * evict. Before each request the gateway's tree is asked what it believes ({@link ApproximateRadixTree#prefixMatch});
 * after it, the engine's {@code cached_tokens} says what was true. Reported per setting: the engines' real prefix-hit
 * rate, the share of {@code cache_hit} decisions whose engine had none of the predicted prefix ("phantom hits"), the
 * predicted vs. actual cached tokens on hits, real hits the tree did not know about, and at the end the tree's
 * characters against the characters of the blocks the engines hold. Eviction runs every second in every setting.
 *
 * <pre>
 * java -cp it-tests/target/classes:$(cat it-tests/target/cp.txt) dev.caravan.it.kv.TreeCalibrationMeasure [--requests 3000]
 *     [--engines 2] [--capacity-tokens 8192] [--tenants 64] [--prefix-blocks 16] [--seed 1] [--time-scale 20]
 * </pre>
 */
public final class TreeCalibrationMeasure {

    private static final int CHARS_PER_TOKEN = SimConfig.DEFAULT_CHARS_PER_TOKEN;
    private static final int BLOCK = SimConfig.DEFAULT_BLOCK_SIZE;

    private record Setting(String name, String maxTreeSize, boolean calibrate) {
    }

    private record Result(Setting setting, long requests, long promptTokens, long cachedTokens, long hitDecisions,
                          long phantomHits, long predictedOnHits, long actualOnHits, long unseenHits, long treeChars,
                          long engineChars) {
    }

    private TreeCalibrationMeasure() {
    }

    public static void main(String[] args) {
        int requests = intArg(args, "--requests", 3000);
        int engines = intArg(args, "--engines", 2);
        int capacity = intArg(args, "--capacity-tokens", 8192);
        int tenants = intArg(args, "--tenants", 64);
        int prefixBlocks = intArg(args, "--prefix-blocks", 16);
        long seed = intArg(args, "--seed", 1);
        double timeScale = intArg(args, "--time-scale", 20);
        List<Setting> settings = List.of(
                new Setting("SGLang Python default (2^26)", Long.toString(1L << 26), false),
                new Setting("SGLang Rust default (10,000)", "10000", false),
                new Setting("calibrated (auto + events)", "auto", true));
        System.out.printf(Locale.ROOT, "%d requests, %d engines x %d KV tokens, %d tenants x %d-block prefix, seed %d%n",
                requests, engines, capacity, tenants, prefixBlocks, seed);
        List<Result> results = new ArrayList<>();
        for (Setting s : settings) {
            results.add(run(s, requests, engines, capacity, tenants, prefixBlocks, seed, timeScale));
        }
        System.out.println();
        System.out.println("| max tree size | engine hit rate | phantom hits | predicted / actual cached tokens on hits"
                + " | real hits the tree missed | tree chars / engine chars at end |");
        System.out.println("|---|---|---|---|---|---|");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "| %s | %.1f %% | %.1f %% of %d | %.0f / %.0f | %d | %.2f |%n",
                    r.setting.name, 100.0 * r.cachedTokens / r.promptTokens,
                    100.0 * r.phantomHits / Math.max(1, r.hitDecisions), r.hitDecisions,
                    (double) r.predictedOnHits / Math.max(1, r.hitDecisions),
                    (double) r.actualOnHits / Math.max(1, r.hitDecisions), r.unseenHits,
                    (double) r.treeChars / Math.max(1, r.engineChars));
        }
    }

    private static Result run(Setting s, int requests, int engines, int capacity, int tenants, int prefixBlocks,
                              long seed, double timeScale) {
        SimConfig sim = SimConfig.builder().kvEventsEndpoint(KvFixtures.EPHEMERAL).kvReplayEndpoint(KvFixtures.EPHEMERAL)
                .kvCapacityTokens(capacity).timeScale(timeScale).defaultMaxTokens(2).build();
        try (SimFleet fleet = SimFleet.start(engines, sim)) {
            GatewayConfig config = GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                    .with(CoreFlags.POLICY_NAME, "cache_aware")
                    .with(RoutingFeature.EVICTION_INTERVAL, "1").with(RoutingFeature.MAX_TREE_SIZE, s.maxTreeSize)
                    .with(KvFeature.KV_CALIBRATE_TREE, Boolean.toString(s.calibrate));
            try (GatewayHarness gw = GatewayHarness.start(config)) {
                String model = sim.model();
                for (SimEngine e : fleet.engines()) {
                    KvFixtures.register(gw.client(), e, model);
                }
                awaitReady(gw, fleet, model, s);
                SplittableRandom random = new SplittableRandom(seed);
                TreeBacked policy = (TreeBacked) gw.gateway().beans().policies().policyFor(model);
                long prompt = 0;
                long cached = 0;
                long hits = 0;
                long phantom = 0;
                long predictedOnHits = 0;
                long actualOnHits = 0;
                long unseen = 0;
                for (int n = 0; n < requests; n++) {
                    int tenant = random.nextInt(tenants);
                    String text = KvFixtures.prompt(String.format(Locale.ROOT, "%03d", tenant) + "-system", prefixBlocks)
                            + "question " + n + " of tenant " + tenant + ": " + Long.toHexString(random.nextLong());
                    PrefixMatch believed = policy.tree(model).map(t -> t.prefixMatch(text)).orElse(null);
                    HttpResponse<String> r = KvFixtures.complete(gw.url(), model, text);
                    var usage = GatewayClient.parse(r.body()).path("usage");
                    long p = usage.path("prompt_tokens").asLong();
                    long c = usage.path("prompt_tokens_details").path("cached_tokens").asLong();
                    prompt += p;
                    cached += c;
                    String decision = r.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER).orElse("");
                    if (decision.endsWith(":cache_hit")) {
                        long predicted = Math.min(p - 1,
                                believed == null ? 0 : believed.matchedChars() / CHARS_PER_TOKEN / BLOCK * BLOCK);
                        hits++;
                        predictedOnHits += predicted;
                        actualOnHits += c;
                        if (c * 2 < predicted) {
                            phantom++;
                        }
                    } else if (c >= (long) prefixBlocks * BLOCK / 2) {
                        unseen++;
                    }
                }
                ApproximateRadixTree tree = policy.tree(model).orElseThrow();
                long treeChars = fleet.engines().stream().mapToLong(e -> tree.tenantChars(e.url())).sum();
                long engineChars = fleet.engines().stream().mapToLong(e -> residentBlocks(e) * BLOCK * CHARS_PER_TOKEN)
                        .sum();
                Result res = new Result(s, requests, prompt, cached, hits, phantom, predictedOnHits, actualOnHits,
                        unseen, treeChars, engineChars);
                System.out.printf(Locale.ROOT, "%s: hit rate %.3f, %d hit decisions, %d phantom%n", s.name,
                        (double) cached / prompt, hits, phantom);
                var kv = gw.gateway().beans().kv();
                for (SimEngine e : fleet.engines()) {
                    var w = gw.workers().findByUrl(e.url()).orElseThrow();
                    var st = kv.ingestor().stats(w.id());
                    System.out.printf(Locale.ROOT, "  %s: %d batches, %d stored, %d removed, %d cleared, %d restarts,"
                                    + " %d gaps; tree %d chars (evicted %d), engine %d blocks%n", e.url(), st.batches(),
                            st.blockStoredEvents(), st.blockRemovedEvents(), st.allBlocksClearedEvents(), st.restarts(),
                            st.gaps(), tree.tenantChars(e.url()),
                            kv.calibrator() == null ? 0 : kv.calibrator().evictedChars(w.id()), residentBlocks(e));
                }
                return res;
            }
        }
    }

    /** Waits until every engine's KV events reach the gateway and, when calibrating, every budget is set. */
    private static void awaitReady(GatewayHarness gw, SimFleet fleet, String model, Setting s) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int n = 0;
        var kv = gw.gateway().beans().kv();
        while (System.nanoTime() < deadline) {
            boolean ready = true;
            for (SimEngine e : fleet.engines()) {
                String id = gw.workers().findByUrl(e.url()).orElseThrow().id();
                var stats = kv.ingestor().stats(id);
                ready &= stats != null && stats.batches() > 0 && (!s.calibrate || kv.capacities().capacity(id) != null);
                if (stats == null || stats.batches() == 0) {
                    KvFixtures.complete(e.url(), model, KvFixtures.prompt("warm-" + n++, 1));
                }
            }
            if (ready) {
                fleet.engines().forEach(SimEngine::flushCache);
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
        throw new IllegalStateException("KV events of the engines did not reach the gateway within 30 s");
    }

    private static long residentBlocks(SimEngine e) {
        String metrics = new GatewayClient(e.url()).get("/metrics").body();
        return (long) MetricsText.sample(metrics, "caravan_sim_kv_resident_blocks");
    }

    private static int intArg(String[] args, String name, int dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return dflt;
    }
}
