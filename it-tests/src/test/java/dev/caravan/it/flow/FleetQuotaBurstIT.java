package dev.caravan.it.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.replica.SyncFleet;

/**
 * The overshoot of a fleet quota within one sync interval: three replicas (Hazelcast, totals published every 100 ms)
 * each with a full bucket get a burst of a tenant's requests at once. Until the peers' totals arrive each replica admits
 * from its own bucket, so the fleet admits up to 3 × the quota in the burst; once the totals have arrived every replica
 * is in the fleet's debt and refuses the tenant until it has refilled, so over the burst plus its wait the fleet holds
 * the quota. The figures go to docs/design/replica-sync.md ("Tenant quotas"); printed by the test.
 */
class FleetQuotaBurstIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final int QUOTA = 30;
    private static final int PER_REPLICA = 2 * QUOTA;
    private static final String BODY = "{\"prompt\":\"all at once\"}";

    @TempDir
    Path dir;

    @Test
    void aBurstWithinOneSyncIntervalOvershootsByAtMostTheReplicasBucketsAndTheDebtThenHoldsTheFleet()
            throws Exception {
        Path tenants = dir.resolve("tenants.yaml");
        Files.writeString(tenants, "trustTenantHeader: true\ntenants:\n  acme:\n    requestsPerMinute: " + QUOTA
                + "\n");
        ExecutorService pool = Executors.newFixedThreadPool(3 * 8);
        try (SyncFleet fleet = new SyncFleet(3, SIMS.urls(), "--tenants-file", tenants.toString()).start()) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> SyncFleet.member(fleet.replica(0)).getCluster().getMembers().size() == 3);
            // warm-up as a tenant without limits (connections, JIT), so the burst itself is short
            List<CompletableFuture<Void>> warm = new ArrayList<>();
            for (int n = 0; n < 3 * 100; n++) {
                int r = n % 3;
                warm.add(CompletableFuture.runAsync(() -> fleet.replica(r).client().postJson("/v1/completions", BODY),
                        pool));
            }
            CompletableFuture.allOf(warm.toArray(CompletableFuture[]::new)).join();
            AtomicInteger[] admitted = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
            List<Long> admittedAtMs = java.util.Collections.synchronizedList(new ArrayList<>());
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            long start = System.nanoTime();
            for (int n = 0; n < 3 * PER_REPLICA; n++) {
                int r = n % 3;
                sent.add(CompletableFuture.runAsync(() -> {
                    int status = fleet.replica(r).client().postJson("/v1/completions", BODY,
                            "X-Caravan-Tenant", "acme").statusCode();
                    assertThat(status).isIn(200, 429);
                    if (status == 200) {
                        admitted[r].incrementAndGet();
                        admittedAtMs.add((System.nanoTime() - start) / 1_000_000);
                    }
                }, pool));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
            double burstMs = (System.nanoTime() - start) / 1e6;
            int total = admitted[0].get() + admitted[1].get() + admitted[2].get();

            // every replica's bucket then carries the fleet's total: the next request anywhere waits out the debt
            List<Long> retryAfter = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                int replica = r;
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    HttpResponse<String> next = fleet.replica(replica).client().postJson("/v1/completions", BODY,
                            "X-Caravan-Tenant", "acme");
                    if (next.statusCode() != 429) {
                        return false;
                    }
                    long seconds = Long.parseLong(next.headers().firstValue("Retry-After").orElseThrow());
                    if (seconds < (total - QUOTA) * 60L / QUOTA - 5) {
                        return false; // a peer's totals not charged yet
                    }
                    retryAfter.add(seconds);
                    return true;
                });
            }
            System.out.printf("FleetQuotaBurstIT: %d requests to 3 replicas at once in %.0f ms: admitted %d %d %d = %d"
                    + " = %.2f x the quota of %d (the last 200 at %d ms);"
                    + " Retry-After afterwards %s s%n", 3 * PER_REPLICA, burstMs, admitted[0].get(),
                    admitted[1].get(), admitted[2].get(), total, total / (double) QUOTA, QUOTA,
                    admittedAtMs.stream().mapToLong(Long::longValue).max().orElse(0), retryAfter);

            assertThat(total).as("no replica admits more than its own bucket before the peers' totals arrive")
                    .isBetween(QUOTA, 3 * QUOTA + 3);
            // the debt is the overshoot: the fleet's next admission waits until (total - QUOTA + 1) have refilled
            long debtSeconds = (long) Math.ceil((total - QUOTA + 1) * 60.0 / QUOTA);
            assertThat(retryAfter).allSatisfy(s -> assertThat(s).isBetween(debtSeconds - 10, debtSeconds));
        } finally {
            pool.shutdownNow();
        }
    }
}
