package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.pd.RelayDecodeProcessor;

/**
 * cache_aware on the prefill pool, round_robin on the decode pool: each pool has its own policy, so a tenant's prefills
 * stick to one prefill engine (where its prefix is cached) while decode spreads freely.
 */
class PdCacheAwareIT {

    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(2, 2, b -> b.decodeMsPerToken(2));

    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(PD.gatewayConfig()
                .with(CaravanFlags.PREFILL_POLICY, "cache_aware")
                .with(CaravanFlags.DECODE_POLICY, "round_robin"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static String[] workersOf(String tenantPreamble, int turn) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("max_tokens", 2);
        body.put("messages", List.of(Map.of("role", "system", "content", tenantPreamble),
                Map.of("role", "user", "content", "question number " + turn)));
        HttpResponse<String> r = gateway.client().postJson("/v1/chat/completions", GatewayClient.json(body));
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
}
