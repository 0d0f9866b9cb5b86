package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.hazelcast.core.HazelcastInstance;

import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.policies.Decision;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Two real gateways (Camel contexts with the sync routes, Hazelcast members on loopback) whose policies are asked
 * directly, as {@code selectWorker} asks them: what one decides, the other learns through the routes. No engines are
 * needed since nothing is forwarded; the ITs in it-tests do that end to end.
 */
class ReplicaSyncTest {

    private static final String WORKERS = "http://w3:8000,http://w1:8000,http://w2:8000"; // not in URL order
    private static final String PREAMBLE = "System prompt of tenant 12: be exact and short. ".repeat(30);
    private static final List<CamelContext> CONTEXTS = new ArrayList<>();
    private static CaravanGateway a;
    private static CaravanGateway b;

    @BeforeAll
    static void startTwoReplicas() throws Exception {
        int portA = ServerEventLoops.freePort("127.0.0.1");
        int portB = ServerEventLoops.freePort("127.0.0.1");
        List<String> members = List.of("127.0.0.1:" + portA, "127.0.0.1:" + portB);
        a = start(Replicas.config(portA, members));
        b = start(Replicas.config(portB, members));
        await().atMost(Duration.ofSeconds(30)).until(() -> instance(a).getCluster().getMembers().size() == 2);
    }

    private static CaravanGateway start(GatewayConfig config) throws Exception {
        CamelContext context = new DefaultCamelContext();
        CaravanGateway gateway = CaravanGateway.install(context, config.with(CoreFlags.WORKER_URLS, WORKERS));
        context.start();
        CONTEXTS.add(context);
        return gateway;
    }

    private static HazelcastInstance instance(CaravanGateway g) {
        return (HazelcastInstance) g.beans().beans().get(SyncFeature.HAZELCAST_INSTANCE);
    }

    @AfterAll
    static void stop() {
        CONTEXTS.forEach(CamelContext::stop);
    }

    private static Decision route(CaravanGateway g, String text) {
        PolicyRegistry.Pool pool = g.beans().policies().poolFor(null);
        return pool.policy().select(pool.workers(), SelectionContext.ofText(text));
    }

    @Test
    void aPromptRoutedOnOneReplicaIsAPeerHitOnTheOther() {
        Decision first = route(a, PREAMBLE + "What changed in the contract?");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Decision onB = route(b, PREAMBLE + "Another question about the same document, please?");
            assertThat(onB.worker().url()).isEqualTo(first.worker().url());
            assertThat(onB.branch()).isIn("cache_hit_peer", "cache_hit");
        });
    }

    @Test
    void inFlightRequestsOnOneReplicaWeighOnTheOthersLoads() {
        Worker onA = a.workers().findByUrl("http://w2:8000").orElseThrow();
        Worker onB = b.workers().findByUrl("http://w2:8000").orElseThrow();
        List<dev.caravan.policies.WorkerLease> leases = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            leases.add(onA.acquire());
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.peerLoad() == 5);
        assertThat(onB.load()).isEqualTo(5);
        assertThat(onB.localLoad()).isZero();
        leases.forEach(dev.caravan.policies.WorkerLease::release);
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.peerLoad() == 0);
    }

    @Test
    void poolsAreSortedByUrlOnEveryReplica() {
        assertThat(a.beans().policies().poolFor(null).workers()).extracting(Worker::url)
                .containsExactly("http://w1:8000", "http://w2:8000", "http://w3:8000");
    }
}
