package dev.caravan.it.replica;

import static dev.caravan.it.replica.ReplicaSyncIT.complete;
import static dev.caravan.it.replica.ReplicaSyncIT.tenantPrompt;
import static dev.caravan.it.replica.ReplicaSyncIT.workerOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.sync.SyncFeature;

/**
 * Faults of a three-replica cache_aware fleet. Each replica's sync member binds its own loopback address
 * (127.0.0.1, .2, .3) and is reached only through a {@link TcpProxy} on that address (its announced public address,
 * which Hazelcast also binds its outgoing connections to), so the test can partition replica 2 by cutting its proxy
 * and refusing connections from 127.0.0.3 at the others' proxies. Failure
 * detection and merging are shortened through Hazelcast's system properties.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicaFaultsIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.defaultMaxTokens(2));

    private static final Map<String, String> FAST_HAZELCAST = Map.of(
            "hazelcast.max.no.heartbeat.seconds", "3",
            "hazelcast.heartbeat.interval.seconds", "1",
            "hazelcast.merge.first.run.delay.seconds", "2",
            "hazelcast.merge.next.run.delay.seconds", "2");
    private static final List<TcpProxy> PROXIES = new ArrayList<>();
    private static SyncFleet fleet;

    static String address(int i) {
        return "127.0.0." + (i + 1);
    }

    @BeforeAll
    static void startFleetBehindProxies() throws Exception {
        FAST_HAZELCAST.forEach(System::setProperty);
        List<String> members = new ArrayList<>();
        int[] ports = new int[3];
        for (int i = 0; i < 3; i++) {
            ports[i] = ServerEventLoops.freePort(address(i));
            // the proxy listens on the member's own address, which the member announces and connects out from
            PROXIES.add(new TcpProxy(address(i), ServerEventLoops.freePort(address(i)),
                    new InetSocketAddress(address(i), ports[i])));
            members.add(address(i) + ":" + PROXIES.get(i).port());
        }
        fleet = new SyncFleet(3, SIMS.urls(), "--decision-headers", "true").adjust((i, c) -> c
                .with(SyncFeature.SYNC_HOST, address(i))
                .with(SyncFeature.SYNC_PORT, Integer.toString(ports[i]))
                .with(SyncFeature.SYNC_PUBLIC_ADDRESS, members.get(i))
                .with(SyncFeature.SYNC_MEMBERS, String.join(",", members)));
        for (int i = 0; i < 3; i++) { // each proxy opens once its member listens
            fleet.start(i);
            PROXIES.get(i).open();
        }
        awaitMembers(0, 3);
    }

    @AfterAll
    static void stop() throws Exception {
        if (fleet != null) {
            fleet.close();
        }
        for (TcpProxy p : PROXIES) {
            p.close();
        }
        FAST_HAZELCAST.keySet().forEach(System::clearProperty);
    }

    static void awaitMembers(int replica, int members) {
        await().atMost(Duration.ofSeconds(60)).until(
                () -> SyncFleet.member(fleet.replica(replica)).getCluster().getMembers().size() == members);
    }

    /** Each tenant's first request on {@code replica}, all at once; returns tenant → worker. */
    static Map<Integer, String> firstRequests(int replica, int from, int count) throws Exception {
        List<String> prompts = new ArrayList<>();
        for (int t = from; t < from + count; t++) {
            prompts.add(tenantPrompt(t, "first"));
        }
        List<HttpResponse<String>> got = ReplicaSyncIT.concurrently(List.of(fleet.replica(replica)), prompts);
        Map<Integer, String> owners = new HashMap<>();
        for (int k = 0; k < count; k++) {
            owners.put(from + k, workerOf(got.get(k)));
        }
        return owners;
    }

    /** Until every live replica holds the same fleet prefix index (as many boundaries, none missing). */
    static void awaitSameIndex() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            double a = SyncFleet.metric(fleet.replica(0), "caravan_sync_peer_prefixes", "");
            assertThat(a).isPositive();
            for (int r = 1; r < fleet.size(); r++) {
                if (fleet.replica(r) != null) {
                    assertThat(SyncFleet.metric(fleet.replica(r), "caravan_sync_peer_prefixes", "")).isEqualTo(a);
                }
            }
        });
    }

    static void assertRouted(int replica, Map<Integer, String> owners, String question) {
        owners.forEach((tenant, owner) -> assertThat(workerOf(complete(fleet.replica(replica),
                tenantPrompt(tenant, question)))).as("tenant " + tenant + " on replica " + replica).isEqualTo(owner));
    }

    @Test
    @Order(1)
    void aReplicaKilledUnderLoadLosesNothingItsPeersKnew() throws Exception {
        Map<Integer, String> owners = firstRequests(2, 0, 15);
        awaitSameIndex(); // probing earlier would route (and record) the probe on replica 0's own knowledge
        assertRouted(0, Map.of(0, owners.get(0)), "probe");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ExecutorService load = Executors.newFixedThreadPool(4);
        for (int th = 0; th < 4; th++) {
            int replica = th % 2;
            load.submit(() -> {
                for (int n = 0; running.get(); n++) {
                    try {
                        HttpResponse<String> r = fleet.replica(replica).client().postJson("/v1/completions",
                                GatewayClient.json(Map.of("model", SIMS.model(),
                                        "prompt", tenantPrompt(n % 15, "load " + n))));
                        sent.incrementAndGet();
                        if (r.statusCode() != 200) {
                            failed.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                    }
                }
            });
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > 20);
        fleet.kill(2);
        awaitMembers(0, 2);
        int before = sent.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > before + 40);
        running.set(false);
        load.shutdown();
        assertThat(load.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(failed.get()).as("failed of %d requests", sent.get()).isZero();
        assertRouted(0, owners, "after the kill");
        assertRouted(1, owners, "after the kill");
        fleet.start(2); // back for the next test: joins late and pulls a snapshot
        awaitMembers(0, 3);
    }

    @Test
    @Order(2)
    void aPartitionedReplicaRoutesAloneAndReconvergesWhenThePartitionHeals() throws Exception {
        PROXIES.get(2).cut();
        PROXIES.get(0).refuseFrom(address(2));
        PROXIES.get(1).refuseFrom(address(2));
        awaitMembers(2, 1);
        awaitMembers(0, 2);
        Map<Integer, String> onIsolated = firstRequests(2, 100, 6); // both sides keep serving from local state
        Map<Integer, String> onMajority = firstRequests(0, 200, 6);
        PROXIES.forEach(TcpProxy::heal);
        awaitMembers(2, 3);
        awaitMembers(0, 3);
        awaitSameIndex();
        assertRouted(0, onIsolated, "after the heal");
        assertRouted(1, onIsolated, "after the heal");
        assertRouted(2, onMajority, "after the heal");
        assertThat(SyncFleet.metric(fleet.replica(2), "caravan_sync_snapshots_total", "outcome=\"merged\""))
                .isGreaterThanOrEqualTo(2);
    }
}
