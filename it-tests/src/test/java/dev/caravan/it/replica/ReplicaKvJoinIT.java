package dev.caravan.it.replica;

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


import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.sim.SimEngine;

/**
 * Three kv_aware replicas syncing through Hazelcast over four engines that publish KV events but keep only
 * {@value #REPLAY_BATCHES} batches for replay. A replica that joins after the warm-up cannot learn the warm-up's blocks
 * from the engines (their replay buffers no longer reach back); it takes the oldest peer's block index when it joins,
 * and its first 100 requests route at ≥ 0.95× the warm replicas' hit rate.
 */
class ReplicaKvJoinIT {

    private static final int REPLAY_BATCHES = 8;
    private static final int TENANTS = 25;
    private static final int PROMPT_BLOCKS = 12;

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4,
            b -> KvFixtures.publishing(b).kvReplayBufferSteps(REPLAY_BATCHES));

    private static SyncFleet fleet;

    @BeforeAll
    static void startFleet() {
        fleet = new SyncFleet(3, List.of(), "--policy", "kv_aware");
        for (int i = 0; i < 2; i++) {
            registerEngines(fleet.start(i));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SyncFleet.member(fleet.replica(0)).getCluster().getMembers().size() == 2);
        for (int i = 0; i < 2; i++) {
            awaitSubscribed(fleet.replica(i));
        }
    }

    /**
     * Until the replica has indexed one event of every engine (a direct one-block request per poll): events published
     * before its subscription is up are lost to it, and the warm-up below must reach its index.
     */
    private static void awaitSubscribed(GatewayHarness replica) {
        for (SimEngine e : SIMS.fleet().engines()) {
            String id = replica.workers().all().stream().filter(w -> w.url().equals(e.url())).findFirst()
                    .orElseThrow().id();
            KvFixtures.awaitIndexed(replica, e, id, 1, Duration.ofSeconds(40));
        }
    }

    @AfterAll
    static void stopFleet() {
        if (fleet != null) {
            fleet.close();
        }
    }

    /** Engines' KV endpoints are ephemeral ports, so each replica is told them through its admin API. */
    private static void registerEngines(GatewayHarness replica) {
        for (SimEngine e : SIMS.fleet().engines()) {
            KvFixtures.register(replica.client(), e, SIMS.model());
        }
    }

    private static String tenant(int t) {
        return KvFixtures.prompt("t" + t, PROMPT_BLOCKS);
    }

    private static List<HttpResponse<String>> send(List<GatewayHarness> to, String question, int n) {
        List<HttpResponse<String>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(KvFixtures.complete(to.get(i % to.size()).url(), SIMS.model(),
                    tenant(i % TENANTS) + question + " " + i));
        }
        return out;
    }

    /** Whether some engine holds every tenant's prompt according to the replica's block index. */
    private static boolean knowsEveryTenant(GatewayHarness replica) {
        KvBlockIndex index = replica.gateway().beans().kv().index();
        for (int t = 0; t < TENANTS; t++) {
            long[] keys = KvFixtures.keys(tenant(t));
            if (index.longestPrefixes(keys, 1, 1).matched().values().stream()
                    .noneMatch(m -> m.blocks() == PROMPT_BLOCKS)) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aReplicaJoiningAfterTheEnginesReplayBuffersMovedOnRoutesOnItsPeersBlockIndex() {
        List<GatewayHarness> warm = List.of(fleet.replica(0), fleet.replica(1));
        send(warm, "warm-up", TENANTS);
        await().atMost(Duration.ofSeconds(20)).until(() -> knowsEveryTenant(fleet.replica(0)));
        send(warm, "more traffic", 8 * REPLAY_BATCHES);                 // the replay buffers move past the warm-up
        List<HttpResponse<String>> warmRun = send(warm, "on a warm replica", 100);

        GatewayHarness late = fleet.start(2);                           // joins: pulls replica 0's block index
        registerEngines(late);                                          // each takes its part of the snapshot
        await().atMost(Duration.ofSeconds(10)).until(() -> knowsEveryTenant(late));
        List<HttpResponse<String>> lateRun = send(List.of(late), "first requests of the late replica", 100);

        double warmRate = ReplicaSyncIT.hitRate(warmRun);
        double lateRate = ReplicaSyncIT.hitRate(lateRun);
        System.out.printf("kv_aware late join: warm replicas' hit rate %.3f, late replica's first 100 %.3f (%.3fx)%n",
                warmRate, lateRate, lateRate / warmRate);
        assertThat(lateRate).isGreaterThanOrEqualTo(0.95 * warmRate);
        assertThat(SyncFleet.metric(late, "caravan_sync_kv_snapshots_total", "outcome=\"merged\"")).isEqualTo(1.0);
        assertThat(SyncFleet.metric(late, "caravan_sync_kv_snapshot_entries_total", "")).isPositive();
    }
}
