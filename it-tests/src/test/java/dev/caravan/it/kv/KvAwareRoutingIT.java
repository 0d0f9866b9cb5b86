package dev.caravan.it.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.MetricsText;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.kv.KvPublisherKind;

/**
 * {@code --policy kv_aware} through the real gateway against three simulated engines publishing KV events over ZeroMQ
 * on loopback: a prompt goes to the engine that reported holding its blocks, and stops going there once that engine
 * reports it dropped them (a flush, an LRU eviction): events, not timers. The engines hash as stock vLLM does
 * ({@code sha256} with a random root each). The parity self-check agrees with the engines, and notices when the gateway
 * tokenizes differently.
 */
class KvAwareRoutingIT {

    /** 128 blocks of 16 tokens per engine: a few dozen 8-block prompts evict the oldest. */
    private static final int CAPACITY_TOKENS = 2048;
    private static final int PROMPT_BLOCKS = 8;
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A JeroMQ handshake can stall and be re-dialled (docs/design/kv-events.md): room for a few re-dials. */
    private static final Duration SUBSCRIBE_WAIT = Duration.ofSeconds(40);

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(3,
            b -> KvFixtures.publishing(b).kvCapacityTokens(CAPACITY_TOKENS));

    private static GatewayHarness gateway;
    private static KvBlockIndex index;
    private static final List<String> ids = new ArrayList<>();

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware"));
        KvFeature kv = gateway.gateway().beans().kv();
        index = kv.index();
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

    private static int matched(String workerId, String prompt) {
        return KvFixtures.matched(index, workerId, prompt);
    }

    private static HttpResponse<String> viaGateway(String prompt) {
        return KvFixtures.complete(gateway.url(), SIMS.model(), prompt);
    }

    private static String header(HttpResponse<String> r, String name) {
        return r.headers().firstValue(name).orElseThrow();
    }

    @Test
    void sendsAPromptToTheEngineHoldingItsBlocksUntilTheEngineFlushesThem() {
        SimEngine holder = SIMS.engine(1);
        String prompt = KvFixtures.prompt("flushed", PROMPT_BLOCKS);
        KvFixtures.complete(holder.url(), SIMS.model(), prompt);                 // only engine 1 computes it
        await().atMost(WAIT).until(() -> matched(ids.get(1), prompt) == PROMPT_BLOCKS);

        HttpResponse<String> hit = viaGateway(prompt);
        assertThat(header(hit, ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(holder.url());
        assertThat(header(hit, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("kv_aware:kv_hit");
        assertThat(GatewayClient.parse(hit.body()).path("usage").path("prompt_tokens_details").path("cached_tokens")
                .asInt()).isEqualTo(PROMPT_BLOCKS * 16 - 16);                  // the engine agrees: all but the last

        await().atMost(WAIT).until(holder::flushCache);                          // AllBlocksCleared
        await().atMost(WAIT).until(() -> matched(ids.get(1), prompt) == 0);

        HttpResponse<String> miss = viaGateway(prompt);
        assertThat(header(miss, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("kv_aware:kv_miss_min_cost");
        String metrics = gateway.client().get("/metrics").body();
        assertThat(MetricsText.sample(metrics, "caravan_kv_events_total", "type=\"AllBlocksCleared\"",
                "worker=\"" + holder.url() + "\"")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void stopsSendingAPromptToAnEngineOnceItEvictsTheBlocks() {
        SimEngine holder = SIMS.engine(2);
        String prompt = KvFixtures.prompt("evicted", PROMPT_BLOCKS);
        KvFixtures.complete(holder.url(), SIMS.model(), prompt);
        await().atMost(WAIT).until(() -> matched(ids.get(2), prompt) == PROMPT_BLOCKS);
        assertThat(header(viaGateway(prompt), ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(holder.url());

        // Other traffic on that engine alone (not through the gateway) pushes the prompt out of its LRU cache.
        int filler = 0;
        while (filler * PROMPT_BLOCKS < 2 * CAPACITY_TOKENS / 16) {
            KvFixtures.complete(holder.url(), SIMS.model(), KvFixtures.prompt("filler-" + filler++, PROMPT_BLOCKS));
        }
        await().atMost(WAIT).until(() -> matched(ids.get(2), prompt) == 0);      // BlockRemoved, one per block

        HttpResponse<String> after = viaGateway(prompt);
        assertThat(header(after, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("kv_aware:kv_miss_min_cost");
        String metrics = gateway.client().get("/metrics").body();
        assertThat(MetricsText.sample(metrics, "caravan_kv_events_total", "type=\"BlockRemoved\"",
                "worker=\"" + holder.url() + "\"")).isGreaterThanOrEqualTo(PROMPT_BLOCKS);
        assertThat(MetricsText.sample(metrics, "caravan_kv_index_blocks", "worker=\"" + holder.url() + "\""))
                .isLessThanOrEqualTo(CAPACITY_TOKENS / 16.0);
    }

    @Test
    void predictedBlocksAreTheOnesTheEnginesReportStoring() {
        ParityTracker parity = gateway.gateway().beans().kv().parity();
        long before = parity.snapshot().matched();
        for (int i = 0; i < 6; i++) {
            viaGateway(KvFixtures.prompt("parity-" + i, PROMPT_BLOCKS));
        }
        await().atMost(WAIT).until(() -> parity.snapshot().matched() - before >= 6L * PROMPT_BLOCKS
                && parity.snapshot().pending() == 0);
        ParityTracker.Snapshot s = parity.snapshot();
        assertThat(s.missed()).isZero();
        assertThat(s.recentAgreement()).isEqualTo(1.0);
        assertThat(MetricsText.sample(gateway.client().get("/metrics").body(), "caravan_kv_parity_agreement"))
                .isEqualTo(1.0);
    }

    /**
     * The silent-tokenizer-mismatch bug class: a gateway that tokenizes differently (3 characters per token where the
     * engines cut 4, and {@code --tokens-source off}, so the engines' {@code /tokenize} is not asked) is told so by the
     * self-check. The hash seed no longer matters: {@code --kv-hash-seed} is accepted
     * and ignored.
     */
    @Test
    void aTokenizerMismatchDrivesParityToZeroAndIsFlagged() {
        GatewayConfig wrongTokens = GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware")
                .with(TokensFeature.TOKENS_SOURCE, "off")
                .with(KvFeature.KV_CHARS_PER_TOKEN, "3").with(KvFeature.KV_HASH_SEED, "1")
                .with(KvFeature.KV_PARITY_EXPIRY_SECS, "1");
        try (GatewayHarness other = GatewayHarness.start(wrongTokens)) {
            KvFixtures.register(other.client(), SIMS.engine(0), SIMS.model());
            ParityTracker parity = other.gateway().beans().kv().parity();
            int blocks = 0;
            for (int i = 0; blocks < 104; i++, blocks += PROMPT_BLOCKS) {
                HttpResponse<String> r = KvFixtures.complete(other.url(), SIMS.model(),
                        KvFixtures.prompt("tokens-" + i, PROMPT_BLOCKS));
                assertThat(header(r, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("kv_aware:kv_miss_min_cost");
            }
            int predicted = blocks;
            await().atMost(WAIT).until(() -> parity.snapshot().missed() >= predicted);
            assertThat(parity.snapshot().matched()).isZero();
            assertThat(parity.snapshot().degraded()).isTrue();
            assertThat(MetricsText.sample(other.client().get("/metrics").body(), "caravan_kv_parity_agreement"))
                    .isEqualTo(0.0);
        }
    }

    /**
     * SGLang's publisher: one BlockStored per page (page size 1 here, SGLang's default), signed 64-bit page ids, its
     * own hash chain, no DP rank in older batches. The gateway learns the page size from the events.
     */
    @Test
    void routesOnSglangPageEventsWithPageSizeOne() {
        try (SimEngine a = SimEngine.start(KvFixtures.publishing(SimConfig.builder())
                     .kvPublisher(KvPublisherKind.SGLANG).blockSize(1).build());
             SimEngine b = SimEngine.start(KvFixtures.publishing(SimConfig.builder())
                     .kvPublisher(KvPublisherKind.SGLANG).blockSize(1).build())) {
            String idA = KvFixtures.register(gateway.client(), a, SIMS.model());
            String idB = KvFixtures.register(gateway.client(), b, SIMS.model());
            try {
                routesOnSglangPages(a, idA, b, idB);
            } finally {
                // engines stopped but still registered would draw the other tests' requests
                gateway.client().delete("/workers/" + idA);
                gateway.client().delete("/workers/" + idB);
            }
        }
    }

    private static void routesOnSglangPages(SimEngine a, String idA, SimEngine b, String idB) {
        KvFixtures.awaitIndexed(gateway, a, idA, 1, SUBSCRIBE_WAIT);
        KvFixtures.awaitIndexed(gateway, b, idB, 1, SUBSCRIBE_WAIT);
        String prompt = KvFixtures.prompt("sglang", 4);                      // 64 tokens = 64 pages
        KvFixtures.complete(b.url(), SIMS.model(), prompt);
        long[] pages = BlockKeys.keys(new PseudoTokenizer().encode(prompt), 1, BlockKeys.PLAIN_ROOT);
        await().atMost(WAIT).until(() -> index.longestPrefixes(pages, 1, 1).matched(idB) == 64);

        HttpResponse<String> r = gateway.client().postJson("/v1/completions", GatewayClient.json(java.util.Map.of(
                "model", SIMS.model(), "prompt", prompt, "max_tokens", 2)));

        assertThat(index.blockSize(idB)).isEqualTo(1);
        assertThat(header(r, ForwardStreamProcessor.WORKER_HEADER)).isEqualTo(b.url());
        assertThat(header(r, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("kv_aware:kv_hit");
        assertThat(GatewayClient.parse(r.body()).path("usage").path("prompt_tokens_details").path("cached_tokens")
                .asInt()).isEqualTo(63);
    }
}
