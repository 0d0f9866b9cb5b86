package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;

/** cache_aware through the real gateway against four simulated engines. */
class CacheAwareRoutingIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.defaultMaxTokens(16));

    private static GatewayHarness gateway;

    @BeforeAll
    static void startGateway() {
        gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls()).with(CoreFlags.DECISION_HEADERS, "true"));
    }

    @AfterAll
    static void stopGateway() {
        gateway.close();
    }

    private static String systemPrompt(int tenant) {
        return "You are the assistant of tenant " + tenant + ". " + ("Policy " + tenant + " says: be exact. ").repeat(20);
    }

    private static Map<String, Object> message(String role, String content) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role);
        m.put("content", content);
        return m;
    }

    private static HttpResponse<String> chat(List<Map<String, Object>> messages) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("messages", messages);
        HttpResponse<String> r = gateway.client().postJson("/v1/chat/completions", GatewayClient.json(body));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }

    private static String workerOf(HttpResponse<String> r) {
        return r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow();
    }

    /**
     * Each round sends one request per tenant, all 40 at once (tenants arrive together, as on a real fleet; the
     * in-flight load is what spreads new prefixes — with strictly sequential traffic every load is 0 and SGLang's
     * least-load tie goes to the first worker).
     */
    @Test
    void keepsEachOfFortyTenantsOnOneWorkerWhileUsingAllWorkers() throws Exception {
        Map<Integer, Set<String>> workersByTenant = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(40);
        try {
            for (int round = 0; round < 3; round++) {
                int r = round;
                List<Future<?>> sent = new ArrayList<>();
                for (int tenant = 0; tenant < 40; tenant++) {
                    int t = tenant;
                    sent.add(pool.submit(() -> {
                        HttpResponse<String> resp = chat(List.of(message("system", systemPrompt(t)),
                                message("user", "question " + r + " from tenant " + t)));
                        workersByTenant.computeIfAbsent(t, k -> ConcurrentHashMap.newKeySet()).add(workerOf(resp));
                    }));
                }
                for (Future<?> f : sent) {
                    f.get(30, TimeUnit.SECONDS);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(workersByTenant).hasSize(40);
        workersByTenant.forEach((tenant, used) -> assertThat(used).as("tenant " + tenant).hasSize(1));
        Set<String> all = new HashSet<>();
        workersByTenant.values().forEach(all::addAll);
        assertThat(all).containsExactlyInAnyOrderElementsOf(SIMS.urls());
    }

    @Test
    void aMultiTurnChatSticksToItsWorkerAsItGrows() {
        List<Map<String, Object>> conversation = new ArrayList<>();
        conversation.add(message("system", "You plan road trips. " + "Keep answers short. ".repeat(10)));
        String first = null;
        List<String> decisions = new ArrayList<>();
        for (int turn = 0; turn < 6; turn++) {
            conversation.add(message("user", "Leg " + turn + ": where do we stop next?"));
            HttpResponse<String> r = chat(conversation);
            String worker = workerOf(r);
            first = first == null ? worker : first;
            assertThat(worker).as("turn " + turn).isEqualTo(first);
            decisions.add(r.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER).orElseThrow());
            String reply = GatewayClient.parse(r.body()).path("choices").path(0).path("message").path("content").asText();
            conversation.add(message("assistant", reply));
        }
        assertThat(decisions.subList(1, decisions.size())).containsOnly("cache_aware:cache_hit");
    }
}
