package dev.caravan.it.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.MetricsText;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.tree.ApproximateRadixTree;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.sim.SimEngine;

/**
 * The event-calibrated approximate tree: cache_aware with {@code --kv-calibrate-tree --max-tree-size auto} against an
 * engine publishing KV events. Its tree budget is the engine's KV capacity, it forgets what the engine evicts, and a
 * flush empties its tenancy, while an uncalibrated gateway watching the same engine keeps believing in everything it
 * ever sent.
 */
class TreeCalibrationIT {

    /** 64 blocks of 16 tokens: about eight 8-block prompts. */
    private static final int CAPACITY_TOKENS = 1024;
    private static final int PROMPT_BLOCKS = 8;
    private static final int PROMPT_CHARS = PROMPT_BLOCKS * KvFixtures.BLOCK_CHARS;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1,
            b -> KvFixtures.publishing(b).kvCapacityTokens(CAPACITY_TOKENS));

    private static GatewayHarness calibrated;
    private static GatewayHarness plain;

    @BeforeAll
    static void start() {
        GatewayConfig base = GatewayHarness.config(List.of()).with(CoreFlags.POLICY_NAME, "cache_aware");
        calibrated = GatewayHarness.start(base.with(KvFeature.KV_CALIBRATE_TREE, "true")
                .with(RoutingFeature.MAX_TREE_SIZE, "auto"));
        plain = GatewayHarness.start(base);
        KvFixtures.register(calibrated.client(), engine(), SIMS.model());
        KvFixtures.register(plain.client(), engine(), SIMS.model());
        int[] n = {0};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            KvFixtures.complete(engine().url(), SIMS.model(), KvFixtures.prompt("probe-" + n[0]++, 1));
            return subscribed(calibrated) && subscribed(plain);
        });
    }

    @AfterAll
    static void stop() {
        calibrated.close();
        plain.close();
    }

    private static SimEngine engine() {
        return SIMS.engine(0);
    }

    private static long clearedEvents(GatewayHarness gw) {
        return gw.gateway().beans().kv().ingestor().stats(gw.workers().all().get(0).id()).allBlocksClearedEvents();
    }

    /** Flushes the engine and waits until the calibrated gateway has applied its AllBlocksCleared. */
    private static void flushEngine() {
        long before = clearedEvents(calibrated);
        await().atMost(WAIT).until(() -> engine().flushCache());
        await().atMost(WAIT).until(() -> clearedEvents(calibrated) > before);
    }

    private static boolean subscribed(GatewayHarness gw) {
        String id = gw.workers().all().get(0).id();
        var stats = gw.gateway().beans().kv().ingestor().stats(id);
        return stats != null && stats.batches() > 0;
    }

    private static TreeBacked policy(GatewayHarness gw) {
        return (TreeBacked) gw.gateway().beans().policies().policyFor(SIMS.model());
    }

    private static long treeChars(GatewayHarness gw) {
        ApproximateRadixTree tree = policy(gw).tree(SIMS.model()).orElseThrow();
        return tree.tenantChars(engine().url());
    }

    /**
     * The same prompts through both gateways (the engine caches them once). Each starts with a different character, so
     * the tree holds exactly their characters.
     */
    private static void sendThroughBoth(char first, int prompts) {
        for (int i = 0; i < prompts; i++) {
            String p = KvFixtures.prompt((char) (first + i) + "-prompt", PROMPT_BLOCKS);
            KvFixtures.complete(calibrated.url(), SIMS.model(), p);
            KvFixtures.complete(plain.url(), SIMS.model(), p);
        }
    }

    @Test
    void theTreeBudgetIsTheEnginesKvCapacity() {
        long expected = (long) CAPACITY_TOKENS * 4;
        await().atMost(WAIT).until(() -> policy(calibrated).tenantCharBudget(engine().url()) == expected);
        assertThat(policy(plain).tenantCharBudget(engine().url())).isEqualTo(CacheAwareConfig.DEFAULT_MAX_TREE_SIZE);
        assertThat(MetricsText.sample(calibrated.client().get("/metrics").body(), "caravan_kv_tree_budget_chars",
                "worker=\"" + engine().url() + "\"")).isEqualTo(expected);
    }

    @Test
    void theCalibratedTreeShrinksWhenTheEngineEvicts() {
        flushEngine();
        assertThat(treeChars(calibrated)).isZero();
        long plainBefore = treeChars(plain);
        sendThroughBoth('A', 4);
        long sent = 4L * PROMPT_CHARS;
        assertThat(treeChars(calibrated)).isEqualTo(sent);
        assertThat(treeChars(plain)).isEqualTo(plainBefore + sent);

        // Traffic the gateways never see fills the engine; it evicts the four prompts (BlockRemoved events).
        for (int i = 0; i < 12; i++) {
            KvFixtures.complete(engine().url(), SIMS.model(), KvFixtures.prompt("elsewhere-" + i, PROMPT_BLOCKS));
        }

        await().atMost(WAIT).until(() -> treeChars(calibrated) == 0);
        assertThat(treeChars(plain)).isEqualTo(plainBefore + sent);   // still believes the engine holds them
        assertThat(MetricsText.sample(calibrated.client().get("/metrics").body(), "caravan_kv_tree_evicted_chars_total",
                "worker=\"" + engine().url() + "\"")).isGreaterThanOrEqualTo(sent);
    }

    @Test
    void anEngineFlushEmptiesTheWorkersTenancy() {
        sendThroughBoth('a', 2);
        assertThat(treeChars(calibrated)).isPositive();

        flushEngine();                                                 // AllBlocksCleared

        assertThat(treeChars(calibrated)).isZero();
        assertThat(policy(calibrated).tree(SIMS.model()).orElseThrow().hasTenant(engine().url())).isTrue();
        assertThat(treeChars(plain)).isGreaterThanOrEqualTo(2L * PROMPT_CHARS);
    }
}
