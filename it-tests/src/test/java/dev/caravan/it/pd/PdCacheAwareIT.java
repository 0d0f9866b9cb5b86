package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.PdFleetExtension;
import dev.caravan.policies.TreeBacked;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.pd.RelayDecodeProcessor;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * cache_aware on the prefill pool, round_robin on the decode pool: each pool has its own policy, so a tenant's prefills
 * stick to one prefill engine (where its prefix is cached) while decode spreads freely. With cache_aware on both pools,
 * each pool keeps its own tree: what happens to prefill tenancy leaves decode tenancy as it was.
 */
class PdCacheAwareIT {

    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(2, 2, b -> b.decodeMsPerToken(2));

    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(PD.gatewayConfig().with(CoreFlags.DECISION_HEADERS, "true")
                .with(PdFeature.PREFILL_POLICY, "cache_aware")
                .with(PdFeature.DECODE_POLICY, "round_robin"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static String[] workersOf(String tenantPreamble, int turn) {
        return workersOf(gateway, tenantPreamble, turn);
    }

    private static String chat(String tenantPreamble, int turn) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("max_tokens", 2);
        body.put("messages", List.of(Map.of("role", "system", "content", tenantPreamble),
                Map.of("role", "user", "content", "question number " + turn)));
        return GatewayClient.json(body);
    }

    /** The prefill and decode worker URLs that served one turn of a tenant's conversation. */
    private static String[] workersOf(GatewayHarness gw, String tenantPreamble, int turn) {
        HttpResponse<String> r = gw.client().postJson("/v1/chat/completions", chat(tenantPreamble, turn));
        assertThat(r.statusCode()).isEqualTo(200);
        String header = r.headers().firstValue(RelayDecodeProcessor.WORKER_HEADER).orElseThrow();
        String[] parts = header.split("; ");
        return new String[] {parts[0].substring("prefill=".length()), parts[1].substring("decode=".length())};
    }

    @Test
    void aTenantsPrefillsStayOnOnePrefillEngineWhileDecodeRotates() {
        String alice = "You are Alice's assistant. ".repeat(20);
        String bob = "Bob's support bot answers questions about invoices and shipping. ".repeat(10);
        Set<String> alicePrefill = new HashSet<>();
        Set<String> bobPrefill = new HashSet<>();
        Set<String> decodes = new HashSet<>();
        for (int turn = 0; turn < 6; turn++) {
            String[] a = workersOf(alice, turn);
            String[] b = workersOf(bob, turn);
            alicePrefill.add(a[0]);
            bobPrefill.add(b[0]);
            decodes.add(a[1]);
            decodes.add(b[1]);
        }
        assertThat(alicePrefill).hasSize(1);
        assertThat(bobPrefill).hasSize(1);
        // the two tenants' first requests were misses, sent to the least-loaded engine: one each
        assertThat(alicePrefill).doesNotContainAnyElementsOf(bobPrefill);
        assertThat(decodes).containsExactlyInAnyOrder(PD.decode(0).url(), PD.decode(1).url());
        // the prefill engines hold the prompts in their caches: later turns hit
        long cached = PD.prefills().stream().mapToLong(e -> e.stats().cachedTokens()).sum();
        assertThat(cached).isGreaterThan(0);
    }

    /** The tree sizes of one pool's policy: worker URL → characters. */
    private static Map<String, Long> treeChars(GatewayHarness gw, String registryBean) {
        PolicyRegistry registry = gw.context().getRegistry().lookupByNameAndType(registryBean, PolicyRegistry.class);
        Map<String, Long> chars = new HashMap<>();
        registry.policies().values().forEach(p -> ((TreeBacked) p).treeChars().values().forEach(chars::putAll));
        return chars;
    }

    @Test
    void cacheAwareOnBothPoolsKeepsDecodeTenancyApartFromPrefillTenancy() {
        try (GatewayHarness gw = GatewayHarness.start(PD.gatewayConfig().with(CoreFlags.DECISION_HEADERS, "true")
                .with(PdFeature.PREFILL_POLICY, "cache_aware")
                .with(PdFeature.DECODE_POLICY, "cache_aware")
                // SGLang's rule: with two tenants on two engines each carries 1/N of the traffic, which
                // --discount-shared-prefix would spread like a preamble
                .with(CoreFlags.SGLANG_DEFAULTS, "true"))) {
            String carol = "Carol's travel agent plans caravan routes across the desert. ".repeat(10);
            String dave = "Dave's tutor explains the chemistry of slow-cooked stews. ".repeat(10);
            Set<String> carolPrefill = new HashSet<>();
            Set<String> carolDecode = new HashSet<>();
            Set<String> daveDecode = new HashSet<>();
            for (int turn = 0; turn < 4; turn++) {
                String[] c = workersOf(gw, carol, turn);
                String[] d = workersOf(gw, dave, turn);
                carolPrefill.add(c[0]);
                carolDecode.add(c[1]);
                daveDecode.add(d[1]);
            }
            // each pool's own tree keeps each tenant on one engine of that pool
            assertThat(carolPrefill).hasSize(1);
            assertThat(carolDecode).hasSize(1);
            assertThat(daveDecode).hasSize(1).doesNotContainAnyElementsOf(carolDecode);
            Map<String, Long> prefillTree = treeChars(gw, "prefillPolicyRegistry");
            Map<String, Long> decodeTree = treeChars(gw, "decodePolicyRegistry");
            assertThat(prefillTree.keySet()).containsExactlyInAnyOrder(PD.prefill(0).url(), PD.prefill(1).url());
            assertThat(decodeTree.keySet()).containsExactlyInAnyOrder(PD.decode(0).url(), PD.decode(1).url());

            // carol's prefill engine leaves: the prefill tree drops that tenant, the decode tree is untouched
            String gone = carolPrefill.iterator().next();
            assertThat(gw.workers().removeByUrl(gone)).hasSize(1);
            assertThat(treeChars(gw, "prefillPolicyRegistry")).doesNotContainKey(gone);
            assertThat(treeChars(gw, "decodePolicyRegistry")).isEqualTo(decodeTree);

            // carol's next turn: a new prefill engine, but decode still finds her prefix where it was
            HttpResponse<String> r = gw.client().postJson("/v1/chat/completions", chat(carol, 4));
            assertThat(r.statusCode()).isEqualTo(200);
            String carolDecoder = carolDecode.iterator().next();
            assertThat(r.headers().firstValue(RelayDecodeProcessor.WORKER_HEADER)).hasValueSatisfying(h ->
                    assertThat(h).doesNotContain(gone).endsWith("; decode=" + carolDecoder));
            assertThat(r.headers().firstValue(RelayDecodeProcessor.DECISION_HEADER)).hasValueSatisfying(h ->
                    assertThat(h).endsWith("; decode=cache_aware:cache_hit"));
            // dave's decode tenancy did not move
            String daveDecoder = daveDecode.iterator().next();
            assertThat(treeChars(gw, "decodePolicyRegistry").get(daveDecoder)).isEqualTo(decodeTree.get(daveDecoder));
        }
    }
}
