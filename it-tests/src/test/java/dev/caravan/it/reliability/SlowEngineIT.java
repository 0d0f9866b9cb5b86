package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimEngine;

/**
 * Chaos: one of four engines answers every request 400 ms late. Load-aware policies see its requests pile up in flight
 * and send it far less than its quarter; round robin, as the contrast, keeps sending it exactly a quarter.
 */
class SlowEngineIT {

    private static final int CLIENTS = 16;
    private static final int PER_CLIENT = 20;
    private static final AtomicInteger PROMPTS = new AtomicInteger();

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.decodeMsPerToken(5).defaultMaxTokens(4));

    @Test
    void loadAwarePoliciesRouteAroundASlowEngine() throws Exception {
        SIMS.engine(1).setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 400)));
        try {
            double roundRobin = slowShare("round_robin", Map.of());
            double powerOfTwo = slowShare("power_of_two", Map.of());
            // distinct prompts: every request is a cache miss, which cache_aware sends to the least-loaded worker
            double cacheAware = slowShare("cache_aware", Map.of());
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("requests_per_policy", CLIENTS * PER_CLIENT);
            figures.put("added_latency_ms", 400);
            figures.put("slow_share_round_robin", String.format("%.3f", roundRobin));
            figures.put("slow_share_power_of_two", String.format("%.3f", powerOfTwo));
            figures.put("slow_share_cache_aware", String.format("%.3f", cacheAware));
            ChaosReport.record("slow-engine", figures);

            assertThat(roundRobin).as("round robin ignores load").isBetween(0.24, 0.26);
            assertThat(powerOfTwo).as("power_of_two (in-flight counts)").isLessThan(0.12);
            assertThat(cacheAware).as("cache_aware miss branch (least loaded)").isLessThan(0.12);
        } finally {
            SIMS.resetFaults();
        }
    }

    /** Runs a closed loop of 16 clients through a fresh gateway with this policy; the slow engine's share. */
    private static double slowShare(String policy, Map<String, String> options) throws Exception {
        SimEngine slow = SIMS.engine(1);
        long before = slow.stats().requests();
        long total;
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.POLICY_NAME, policy).with(CoreFlags.LOAD_CHECK_INTERVAL, "0"))) {
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            List<Future<Integer>> runs = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                runs.add(pool.submit(() -> {
                    int ok = 0;
                    for (int i = 0; i < PER_CLIENT; i++) {
                        HttpResponse<String> r = gw.client().postJson("/v1/completions",
                                "{\"prompt\":\"request " + PROMPTS.incrementAndGet() + " about camels\"}");
                        ok += r.statusCode() == 200 ? 1 : 0;
                    }
                    return ok;
                }));
            }
            int ok = 0;
            for (Future<Integer> f : runs) {
                ok += f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
            total = CLIENTS * PER_CLIENT;
            assertThat(ok).as(policy + ": every request answered").isEqualTo(total);
        }
        return (slow.stats().requests() - before) / (double) total;
    }
}
