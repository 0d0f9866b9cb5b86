package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.Fleet;
import dev.caravan.policies.fleet.SessionClaim;
import dev.caravan.policies.fleet.SessionStore;

/** manual on two replicas sharing one in-memory store with the claim semantics of the sync module's entry processor. */
class ManualFleetTest {

    /** The store's contract, atomically per key; claims complete when {@link #answer} is called, as a network would. */
    private static class Store implements SessionStore {
        final Map<String, List<String>> entries = new ConcurrentHashMap<>();
        final List<Runnable> pending = new ArrayList<>();
        int claims;

        @Override
        public String keyOf(String model, String routingKey) {
            return model + "/" + routingKey.hashCode();
        }

        @Override
        public synchronized CompletionStage<SessionClaim> claim(String model, String key, List<String> usable,
                String proposal) {
            claims++;
            CompletableFuture<SessionClaim> f = new CompletableFuture<>();
            pending.add(() -> {
                List<String> held = entries.get(key);
                SessionClaim c;
                if (held == null) {
                    entries.put(key, List.of(proposal));
                    c = new SessionClaim(List.of(proposal), "vacant", 1);
                } else if (held.stream().anyMatch(usable::contains)) {
                    c = new SessionClaim(held, "occupied_hit", 1);
                } else {
                    List<String> next = List.of(held.get(held.size() - 1), proposal);
                    entries.put(key, next);
                    c = new SessionClaim(next, "occupied_miss", 2);
                }
                f.complete(c);
            });
            return f;
        }

        synchronized void answer() {
            pending.forEach(Runnable::run);
            pending.clear();
        }

        @Override
        public void touched(String key) {
        }
    }

    private static ManualPolicy replica(Store store, long seed) {
        return new ManualPolicy(ManualConfig.defaults(),
                PolicyEnvironment.seeded(seed).withFleet(new Fleet(null, store)));
    }

    private static SelectionContext key(String k) {
        return new SelectionContext(null, "", null, Map.of("x-smg-routing-key", k));
    }

    @Test
    void concurrentFirstRequestsOnTwoReplicasGetOneWorker() {
        Store store = new Store();
        List<Worker> workersA = TestWorkers.of(8);
        List<Worker> workersB = TestWorkers.of(8);
        ManualPolicy a = replica(store, 1);
        ManualPolicy b = replica(store, 99);
        CompletionStage<Void> onA = a.agreeBefore(workersA, key("session-1"));
        CompletionStage<Void> onB = b.agreeBefore(workersB, key("session-1"));
        assertThat(onA).isNotNull();
        assertThat(onB).isNotNull();
        store.answer(); // both claims reach the store: the first one's proposal is kept
        Decision dA = a.select(workersA, key("session-1"));
        Decision dB = b.select(workersB, key("session-1"));
        assertThat(dA.worker().url()).isEqualTo(dB.worker().url());
        assertThat(List.of(dA.branch(), dB.branch())).containsExactly("vacant", "occupied_hit");
        // known and usable now: no more claims
        assertThat(a.agreeBefore(workersA, key("session-1"))).isNull();
        assertThat(a.select(workersA, key("session-1")).branch()).isEqualTo("occupied_hit");
        assertThat(store.claims).isEqualTo(2);
    }

    @Test
    void aKeyWhoseWorkersAreAllUnusableHereClaimsAgainAndFollowsTheFleet() {
        Store store = new Store();
        List<Worker> workers = TestWorkers.of(3);
        ManualPolicy a = replica(store, 1);
        a.agreeBefore(workers, key("k"));
        store.answer();
        Worker first = a.select(workers, key("k")).worker();
        first.setHealthy(false);
        CompletionStage<Void> again = a.agreeBefore(workers, key("k"));
        assertThat(again).isNotNull();
        store.answer();
        Decision d = a.select(workers, key("k"));
        assertThat(d.branch()).isEqualTo("occupied_miss");
        assertThat(d.worker()).isNotSameAs(first);
        assertThat(store.entries.values()).containsExactly(List.of(first.url(), d.worker().url()));
    }

    @Test
    void aFailedClaimLeavesTheDecisionToThisReplica() {
        SessionStore failing = new Store() {
            @Override
            public synchronized CompletionStage<SessionClaim> claim(String model, String key, List<String> usable,
                    String proposal) {
                return CompletableFuture.failedFuture(new IllegalStateException("partitioned"));
            }
        };
        ManualPolicy a = new ManualPolicy(ManualConfig.defaults(),
                PolicyEnvironment.seeded(1).withFleet(new Fleet(null, failing)));
        List<Worker> workers = TestWorkers.of(3);
        assertThat(a.agreeBefore(workers, key("k")).toCompletableFuture()).isCompletedWithValue(null);
        assertThat(a.select(workers, key("k")).branch()).isEqualTo("vacant");
    }

    @Test
    void peersChangesReplaceKnownKeysByVersion() {
        Store store = new Store();
        List<Worker> workers = TestWorkers.of(3);
        ManualPolicy a = replica(store, 1);
        a.agreeBefore(workers, key("k"));
        store.answer();
        a.select(workers, key("k"));
        String fleetKey = store.keyOf("unknown", "k");
        a.sessionChanged(fleetKey, List.of(workers.get(2).url()), 5);
        a.sessionChanged(fleetKey, List.of(workers.get(1).url()), 4); // older: ignored
        assertThat(a.select(workers, key("k")).worker()).isSameAs(workers.get(2));
        assertThat(a.keysAssigned(workers.get(2).url())).isEqualTo(1);
        a.sessionRemoved(fleetKey);
        assertThat(a.routingKeys()).isZero();
    }

    @Test
    void withoutAFleetNothingIsClaimed() {
        ManualPolicy alone = new ManualPolicy(ManualConfig.defaults(), PolicyEnvironment.seeded(1));
        assertThat(alone.agreeBefore(TestWorkers.of(2), key("k"))).isNull();
    }
}
