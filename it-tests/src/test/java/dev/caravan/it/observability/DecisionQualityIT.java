package dev.caravan.it.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.MetricsText;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.quality.QualityFeature;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.sim.SimEngine;

/**
 * {@code --decision-quality} and {@code --shadow-policies} through the real gateway against three simulated engines
 * that publish KV events and report {@code cached_tokens}: per policy, what the chosen engine held, the most any engine
 * held and what the engine then served from cache; per shadow policy, what its pick would have held. A second gateway
 * without KV events scores cache_aware by its tree.
 */
class DecisionQualityIT {

    private static final int PROMPT_BLOCKS = 8;
    /** Tokens of an 8-block prompt (16-token blocks), and what an engine holding it serves from cache (all but one). */
    private static final int PROMPT_TOKENS = PROMPT_BLOCKS * 16;
    private static final int CACHED = PROMPT_TOKENS - 16;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration SUBSCRIBE_WAIT = Duration.ofSeconds(40);

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(3, KvFixtures::publishing);

    private static GatewayHarness gateway;
    private static final List<String> ids = new ArrayList<>();

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware")
                .with(QualityFeature.DECISION_QUALITY, "true")
                .with(QualityFeature.DECISION_QUALITY_WINDOW, "1")
                .with(QualityFeature.SHADOW_POLICIES, "round_robin,cache_aware"));
        KvBlockIndex index = gateway.gateway().beans().kv().index();
        for (SimEngine e : SIMS.fleet().engines()) {
            ids.add(KvFixtures.register(gateway.client(), e, SIMS.model()));
        }
        for (int i = 0; i < ids.size(); i++) {
            KvFixtures.awaitIndexed(gateway, SIMS.engine(i), ids.get(i), 1, SUBSCRIBE_WAIT);
        }
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static double value(GatewayHarness gw, String name, String... labels) {
        double v = MetricsText.sample(gw.client().get("/metrics").body(), name, labels);
        return Double.isNaN(v) ? 0 : v;
    }

    /** One engine alone computes the prompt, then the gateway is asked to route it. */
    private static SimEngine primed(int engine, String prompt) {
        SimEngine holder = SIMS.engine(engine);
        KvFixtures.complete(holder.url(), SIMS.model(), prompt);
        KvBlockIndex index = gateway.gateway().beans().kv().index();
        await().atMost(WAIT).until(() -> KvFixtures.matched(index, ids.get(engine), prompt) == PROMPT_BLOCKS);
        return holder;
    }

    @Test
    void kvAwareCountsWhatItsPickHeldWhatWasReachableAndWhatTheEngineServedFromCacheStreamingOrNot() {
        String[] names = {"caravan_decision_expected_tokens_total", "caravan_decision_reachable_tokens_total",
                "caravan_decision_captured_tokens_total"};
        double[] before = new double[names.length];
        for (int i = 0; i < names.length; i++) {
            before[i] = value(gateway, names[i], "policy=\"kv_aware\"");
        }
        double reportedBefore = value(gateway, "caravan_decision_requests_total", "policy=\"kv_aware\"",
                "reported=\"true\"");

        SimEngine first = primed(1, KvFixtures.prompt("quality", PROMPT_BLOCKS));
        HttpResponse<String> r = KvFixtures.complete(gateway.url(), SIMS.model(),
                KvFixtures.prompt("quality", PROMPT_BLOCKS));
        assertThat(r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER)).hasValue(first.url());
        assertThat(r.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER)).hasValue("kv_aware:kv_hit");

        SimEngine second = primed(2, KvFixtures.prompt("streamed", PROMPT_BLOCKS));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("prompt", KvFixtures.prompt("streamed", PROMPT_BLOCKS));
        body.put("max_tokens", 2);
        body.put("stream", true);
        body.put("stream_options", Map.of("include_usage", true));
        GatewayClient.Streamed s = gateway.client().stream("/v1/completions", GatewayClient.json(body));
        assertThat(s.status()).isEqualTo(200);
        assertThat(s.header(ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(second.url());

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(value(gateway, "caravan_decision_requests_total", "policy=\"kv_aware\"", "reported=\"true\""))
                    .isEqualTo(reportedBefore + 2);
            // held and reachable stop one token short of the prompt, as the engine's hit does: CACHED each
            assertThat(value(gateway, names[0], "policy=\"kv_aware\"")).isEqualTo(before[0] + 2 * CACHED);
            assertThat(value(gateway, names[1], "policy=\"kv_aware\"")).isEqualTo(before[1] + 2 * CACHED);
            assertThat(value(gateway, names[2], "policy=\"kv_aware\"")).isEqualTo(before[2] + 2 * CACHED);
        });
        // a window of one request: the streamed one, served all it could be
        assertThat(value(gateway, "caravan_decision_capture_ratio", "policy=\"kv_aware\"")).isEqualTo(1.0);
    }

    @Test
    void eachShadowPolicyIsScoredByWhatItsPickHeldWithoutCallingAnyEngine() {
        // the taps of earlier requests have all been scored (a shadow decides once per live decision here)
        await().atMost(WAIT).untilAsserted(() -> {
            double live = value(gateway, "caravan_policy_decisions_total", "policy=\"kv_aware\"");
            for (String shadow : List.of("round_robin", "cache_aware")) {
                double[] s = shadowSamples(shadow);
                assertThat(s[0] + s[1]).as(shadow).isEqualTo(live);
            }
        });
        long served = SIMS.fleet().engines().stream().mapToLong(e -> e.stats().requests()).sum();
        Map<String, double[]> before = new LinkedHashMap<>();
        for (String shadow : List.of("round_robin", "cache_aware")) {
            before.put(shadow, shadowSamples(shadow));
        }

        for (int i = 0; i < 3; i++) {
            String prompt = KvFixtures.prompt("shadowed" + i, PROMPT_BLOCKS);
            primed(i, prompt);
            KvFixtures.complete(gateway.url(), SIMS.model(), prompt);
        }

        // 3 primes and 3 routed requests: the shadows sent nothing
        assertThat(SIMS.fleet().engines().stream().mapToLong(e -> e.stats().requests()).sum()).isEqualTo(served + 6);
        for (String shadow : before.keySet()) {
            double[] b = before.get(shadow);
            await().atMost(WAIT).untilAsserted(() -> {
                double[] now = shadowSamples(shadow);
                double agreed = now[0] - b[0];
                assertThat(agreed + now[1] - b[1]).as(shadow + " decisions").isEqualTo(3);
                // only the live pick held each prompt: a shadow's pick held it exactly when the two agreed
                assertThat(now[2] - b[2]).as(shadow + " expected").isEqualTo(agreed * CACHED);
                assertThat(now[3] - b[3]).as(shadow + " baseline").isEqualTo(3.0 * CACHED);
                assertThat(now[4] - b[4]).as(shadow + " reachable").isEqualTo(3.0 * CACHED);
            });
        }
    }

    private static double[] shadowSamples(String shadow) {
        String l = "shadow=\"" + shadow + "\"";
        return new double[] {
            value(gateway, "caravan_shadow_decisions_total", l, "agrees=\"true\""),
            value(gateway, "caravan_shadow_decisions_total", l, "agrees=\"false\""),
            value(gateway, "caravan_shadow_expected_tokens_total", l),
            value(gateway, "caravan_shadow_baseline_tokens_total", l),
            value(gateway, "caravan_shadow_reachable_tokens_total", l)};
    }

    /**
     * Without KV events, cache_aware is scored by its own tree as it stood before each decision: the second turn of a
     * conversation was held (all of the first turn) by the worker that served the first, which it chose again.
     */
    @Test
    void cacheAwareWithoutKvEventsIsScoredByItsTree() {
        try (GatewayHarness tree = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.DECISION_HEADERS, "true")
                .with(QualityFeature.DECISION_QUALITY, "true"))) {
            List<Map<String, Object>> conversation = new ArrayList<>();
            conversation.add(Map.of("role", "system", "content", "You map caravan routes. ".repeat(20)));
            conversation.add(Map.of("role", "user", "content", "From Kashgar to Merv?"));
            HttpResponse<String> turn1 = chat(tree, conversation);
            conversation.add(Map.of("role", "assistant", "content", GatewayClient.parse(turn1.body()).path("choices")
                    .path(0).path("message").path("content").asText()));
            conversation.add(Map.of("role", "user", "content", "And on to Samarkand?"));
            HttpResponse<String> turn2 = chat(tree, conversation);
            assertThat(turn2.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER))
                    .isEqualTo(turn1.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER));
            long cached = GatewayClient.parse(turn2.body()).path("usage").path("prompt_tokens_details")
                    .path("cached_tokens").asLong();

            String p = "policy=\"cache_aware\"";
            await().atMost(WAIT).untilAsserted(() -> assertThat(value(tree, "caravan_decision_requests_total", p,
                    "reported=\"true\"")).isEqualTo(2));
            double expected = value(tree, "caravan_decision_expected_tokens_total", p);
            assertThat(expected).isPositive();
            assertThat(value(tree, "caravan_decision_reachable_tokens_total", p)).isEqualTo(expected);
            assertThat(value(tree, "caravan_decision_captured_tokens_total", p)).isEqualTo(cached).isPositive();
        }
    }

    /**
     * {@code --kv-parity-fallback}: a gateway that tokenizes differently from the engines (3 characters per token where
     * they cut 4, and {@code --tokens-source off}, so the engines' {@code /tokenize} is not asked) sees its predictions fail, and from then on routes by cache_aware, which keeps a repeated prompt on
     * one engine, except one request in 8 that kv_aware still decides.
     */
    @Test
    void kvAwareFallsBackToTheTreeWhileItsParityIsDegraded() {
        try (GatewayHarness wrong = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware").with(KvFeature.KV_CHARS_PER_TOKEN, "3")
                .with(TokensFeature.TOKENS_SOURCE, "off")
                .with(KvFeature.KV_PARITY_EXPIRY_SECS, "1").with(KvFeature.KV_PARITY_FALLBACK, "true"))) {
            KvFixtures.register(wrong.client(), SIMS.engine(0), SIMS.model());
            KvFixtures.register(wrong.client(), SIMS.engine(1), SIMS.model());
            var parity = wrong.gateway().beans().kv().parity();
            for (int i = 0; i < 14; i++) {
                KvFixtures.complete(wrong.url(), SIMS.model(), KvFixtures.prompt("fallback-" + i, PROMPT_BLOCKS));
            }
            await().atMost(WAIT).until(() -> parity.snapshot().degraded());

            List<String> decisions = new ArrayList<>();
            List<String> treeWorkers = new ArrayList<>();
            String prompt = KvFixtures.prompt("fallen-back", PROMPT_BLOCKS);
            for (int i = 0; i < 8; i++) {
                HttpResponse<String> r = KvFixtures.complete(wrong.url(), SIMS.model(), prompt);
                String decision = r.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER).orElseThrow();
                decisions.add(decision);
                if (decision.equals("kv_aware:parity_fallback")) {
                    treeWorkers.add(r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow());
                }
            }
            assertThat(decisions).filteredOn(d -> d.equals("kv_aware:parity_fallback")).hasSize(7);
            assertThat(decisions).filteredOn(d -> d.startsWith("kv_aware:kv_")).hasSize(1);
            assertThat(treeWorkers).containsOnly(treeWorkers.get(0));
        }
    }

    private static HttpResponse<String> chat(GatewayHarness gw, List<Map<String, Object>> messages) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("messages", messages);
        body.put("max_tokens", 4);
        HttpResponse<String> r = gw.client().postJson("/v1/chat/completions", GatewayClient.json(body));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }
}
