package dev.caravan.it.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
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
import dev.caravan.processors.forward.ForwardStreamProcessor;

/**
 * Three {@code manual} replicas syncing sessions: the first request of a routing key, sent to all three replicas at the
 * same moment, gets one worker everywhere (the fleet-wide claim), and the key then sticks to it on every replica.
 */
class ReplicaSessionsIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.defaultMaxTokens(2));

    private static SyncFleet fleet;

    @BeforeAll
    static void startFleet() {
        fleet = new SyncFleet(3, SIMS.urls(), "--policy", "manual", "--decision-headers", "true").start();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SyncFleet.member(fleet.replica(0)).getCluster().getMembers().size() == 3);
    }

    @AfterAll
    static void stopFleet() {
        if (fleet != null) {
            fleet.close();
        }
    }

    private static HttpResponse<String> send(GatewayHarness replica, String key, String text) {
        String body = GatewayClient.json(Map.of("model", SIMS.model(), "prompt", text));
        HttpResponse<String> r = replica.client().postJson("/v1/completions", body, "X-SMG-Routing-Key", key);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }

    private static String header(HttpResponse<String> r, String name) {
        return r.headers().firstValue(name).orElseThrow();
    }

    @Test
    void concurrentFirstRequestsOnThreeReplicasGetOneWorkerAndStickThere() throws Exception {
        int keys = 20;
        ExecutorService pool = Executors.newFixedThreadPool(3 * keys);
        try {
            for (int k = 0; k < keys; k++) {
                String key = "session-" + k;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<HttpResponse<String>>> first = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    GatewayHarness replica = fleet.replica(r);
                    first.add(pool.submit(() -> {
                        go.await();
                        return send(replica, key, "hello from " + key);
                    }));
                }
                go.countDown();
                Set<String> workers = new HashSet<>();
                List<String> branches = new ArrayList<>();
                for (Future<HttpResponse<String>> f : first) {
                    HttpResponse<String> r = f.get(30, TimeUnit.SECONDS);
                    workers.add(header(r, ForwardStreamProcessor.WORKER_HEADER));
                    branches.add(header(r, ForwardStreamProcessor.DECISION_HEADER));
                }
                assertThat(workers).as("workers of " + key + " " + branches).hasSize(1);
                assertThat(branches).as(key).containsOnlyOnce("manual:vacant");
                String worker = workers.iterator().next();
                for (int turn = 0; turn < 6; turn++) {
                    HttpResponse<String> r = send(fleet.replica(turn % 3), key, "turn " + turn + " of " + key);
                    assertThat(header(r, ForwardStreamProcessor.WORKER_HEADER)).as(key + " turn " + turn)
                            .isEqualTo(worker);
                    assertThat(header(r, ForwardStreamProcessor.DECISION_HEADER)).isEqualTo("manual:occupied_hit");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        double claims = 0;
        for (int r = 0; r < 3; r++) {
            claims += SyncFleet.metric(fleet.replica(r), "caravan_sync_session_claims_total", "outcome=\"vacant\"");
        }
        assertThat(claims).isEqualTo(keys);
    }
}
