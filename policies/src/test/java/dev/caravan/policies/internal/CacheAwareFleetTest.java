package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.Fleet;
import dev.caravan.policies.fleet.FleetPrefixIndex;
import dev.caravan.policies.fleet.FleetPrefixes;
import dev.caravan.policies.fleet.PrefixDecision;
import dev.caravan.policies.fleet.PrefixHasher;
import dev.caravan.policies.tree.OwnerRule;

/** Two cache_aware replicas whose fleet indexes exchange decisions by hand (the sync module's topic in a list). */
class CacheAwareFleetTest {

    private static final byte[] KEY = "secret".getBytes(StandardCharsets.UTF_8);
    private static final String PREAMBLE = "Tenant 7's system prompt: answer briefly and cite sources. ".repeat(40);

    /** One replica: its own workers (same URLs), policy, index and outbox. */
    private static final class Replica {
        final List<Worker> workers = TestWorkers.of(3);
        final List<PrefixDecision> outbox = new ArrayList<>();
        final FleetPrefixes fleet;
        final CacheAwarePolicy policy;

        Replica(AtomicLong clock, int origin) {
            fleet = new FleetPrefixes(new PrefixHasher(KEY), new FleetPrefixIndex(OwnerRule.FIRST),
                    () -> clock.incrementAndGet() * 16 + origin, outbox::add);
            policy = new CacheAwarePolicy(CacheAwareConfig.sglang(),
                    PolicyEnvironment.seeded(origin).withFleet(new Fleet(fleet, null)));
            workers.forEach(policy::onWorkerAdded);
        }

        Decision route(String text) {
            return policy.select(workers, SelectionContext.ofText(text));
        }

        void deliverTo(Replica peer) {
            outbox.forEach(peer.fleet::learn);
            outbox.clear();
        }
    }

    @Test
    void aReplicaRoutesAPromptItNeverSawWhereAPeerSentIt() {
        AtomicLong clock = new AtomicLong();
        Replica a = new Replica(clock, 1);
        Replica b = new Replica(clock, 2);
        Decision first = a.route(PREAMBLE + "Question one?");
        a.deliverTo(b);
        assertThat(first.worker().url()).isEqualTo("http://w0:8000");
        TestWorkers.load(b.workers.get(0), 1); // alone, b would now pick another worker
        Decision second = b.route(PREAMBLE + "A different question, longer than the first one?");
        assertThat(second.worker().url()).isEqualTo(first.worker().url());
        assertThat(second.label()).isEqualTo("cache_aware:cache_hit_peer");
        // b recorded it in its own tree too: the next one is a local hit
        assertThat(b.route(PREAMBLE + "A third question?").label()).isEqualTo("cache_aware:cache_hit");
    }

    @Test
    void twoReplicasThatRacedOnAFirstRequestConvergeOnTheEarlierOwner() {
        AtomicLong clock = new AtomicLong();
        Replica a = new Replica(clock, 1);
        Replica b = new Replica(clock, 2);
        TestWorkers.load(b.workers.get(0), 1); // b's least-loaded worker differs from a's
        Decision onA = a.route(PREAMBLE + "first");
        Decision onB = b.route(PREAMBLE + "second");
        assertThat(onA.worker().url()).isNotEqualTo(onB.worker().url());
        a.deliverTo(b);
        b.deliverTo(a);
        Decision nextOnA = a.route(PREAMBLE + "third");
        Decision nextOnB = b.route(PREAMBLE + "fourth");
        assertThat(nextOnA.worker().url()).isEqualTo(onA.worker().url());   // a decided first
        assertThat(nextOnB.worker().url()).isEqualTo(onA.worker().url());
        assertThat(nextOnB.branch()).isEqualTo("cache_hit_peer");
    }

    @Test
    void aFleetOwnerThatIsNotACandidateHereIsIgnored() {
        AtomicLong clock = new AtomicLong();
        Replica a = new Replica(clock, 1);
        Replica b = new Replica(clock, 2);
        Decision first = a.route(PREAMBLE + "one");
        a.deliverTo(b);
        List<Worker> withoutIt = b.workers.stream().filter(w -> !w.url().equals(first.worker().url())).toList();
        Decision d = b.policy.select(withoutIt, SelectionContext.ofText(PREAMBLE + "two"));
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");
    }

    @Test
    void removingAWorkerForgetsItsFleetEntries() {
        AtomicLong clock = new AtomicLong();
        Replica a = new Replica(clock, 1);
        Decision first = a.route(PREAMBLE + "one");
        assertThat(a.fleet.index().size()).isPositive();
        a.policy.onWorkerRemoved(first.worker());
        assertThat(a.fleet.index().size()).isZero();
    }
}
