package dev.caravan.it.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.replica.SyncFleet;
import dev.caravan.processors.config.CoreFlags;

/**
 * A tenant's requests-per-minute quota under a burst at three replicas (Hazelcast sync). The quota is one bucket shared
 * by the replicas, which lease slices of it ahead of the requests (the sync module's {@code QuotaLeases}): every
 * request a replica admits is charged to the shared bucket, and only a replica's first request without a lease passes
 * on credit, so a burst within one sync interval is held to the quota plus one request per replica — at most 1.10 × a
 * quota of 30 — and the fleet refuses the tenant everywhere afterwards until the bucket refills. A replica whose member
 * is gone limits alone, with its own bucket, and counts the failure. Figures printed; in docs/design/replica-sync.md
 * ("Tenant quotas").
 */
class FleetQuotaBurstIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final int QUOTA = 30;
    private static final int PER_REPLICA = 2 * QUOTA;
    private static final String BODY = "{\"prompt\":\"all at once\"}";

    @TempDir
    Path dir;

    private String[] tenantsFile() throws Exception {
        Path tenants = dir.resolve("tenants.yaml");
        Files.writeString(tenants, "trustTenantHeader: true\ntenants:\n  acme:\n    requestsPerMinute: " + QUOTA
                + "\n");
        return new String[] {"--tenants-file", tenants.toString()};
    }

    private static int acme(GatewayHarness replica) {
        return replica.client().postJson("/v1/completions", BODY, "X-Caravan-Tenant", "acme").statusCode();
    }

    @Test
    void aBurstWithinOneSyncIntervalIsHeldToTheQuotaPlusOneCreditPerReplica() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3 * 8);
        try (SyncFleet fleet = new SyncFleet(3, SIMS.urls(), tenantsFile()).start()) {
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
            List<Long> admittedAtMs = Collections.synchronizedList(new ArrayList<>());
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            long start = System.nanoTime();
            for (int n = 0; n < 3 * PER_REPLICA; n++) {
                int r = n % 3;
                sent.add(CompletableFuture.runAsync(() -> {
                    int status = acme(fleet.replica(r));
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

            // the fleet's bucket is spent: the next request anywhere is refused until one request has refilled
            long refillSeconds = (long) Math.ceil((Math.max(0, total - QUOTA) + 1) * 60.0 / QUOTA);
            List<Long> retryAfter = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                int replica = r;
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    HttpResponse<String> next = fleet.replica(replica).client().postJson("/v1/completions", BODY,
                            "X-Caravan-Tenant", "acme");
                    if (next.statusCode() != 429) {
                        return false;
                    }
                    retryAfter.add(Long.parseLong(next.headers().firstValue("Retry-After").orElseThrow()));
                    return true;
                });
            }
            System.out.printf("FleetQuotaBurstIT: %d requests to 3 replicas at once in %.0f ms: admitted %d %d %d = %d"
                    + " = %.2f x the quota of %d (the last 200 at %d ms); Retry-After afterwards %s s%n",
                    3 * PER_REPLICA, burstMs, admitted[0].get(), admitted[1].get(), admitted[2].get(), total,
                    total / (double) QUOTA, QUOTA, admittedAtMs.stream().mapToLong(Long::longValue).max().orElse(0),
                    retryAfter);

            assertThat(total).as("the shared bucket's %d plus one credit per replica", QUOTA)
                    .isLessThanOrEqualTo(QUOTA * 11 / 10);
            assertThat(admitted).as("every replica's first request passes on credit")
                    .allSatisfy(a -> assertThat(a.get()).isPositive());
            assertThat(retryAfter).allSatisfy(s -> assertThat(s).isBetween(1L, refillSeconds));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReplicaWhoseMemberIsGoneLimitsTheTenantAloneAndCountsTheFailure() throws Exception {
        // round_robin: cache_aware's fleet prefix index needs the member on every decision, quotas aside
        try (SyncFleet fleet = new SyncFleet(3, SIMS.urls(), tenantsFile())
                .adjust((i, c) -> c.with(CoreFlags.POLICY_NAME, "round_robin")).start()) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> SyncFleet.member(fleet.replica(0)).getCluster().getMembers().size() == 3);
            GatewayHarness cut = fleet.replica(2);
            SyncFleet.member(cut).getLifecycleService().terminate();

            int admitted = 0;
            for (int n = 0; n < QUOTA + 5; n++) {
                admitted += acme(cut) == 200 ? 1 : 0;
            }

            // its own full bucket, plus at most one request refilled (one every 2 s) while the requests ran
            assertThat(admitted).isBetween(QUOTA, QUOTA + 1);
            assertThat(SyncFleet.metric(cut, "caravan_sync_failures_total", "channel=\"quota-leases\""))
                    .isGreaterThanOrEqualTo(1);
        }
    }
}
