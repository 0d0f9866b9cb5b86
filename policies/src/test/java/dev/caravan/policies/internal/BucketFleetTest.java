package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.BucketRanges;
import dev.caravan.policies.fleet.Fleet;

class BucketFleetTest {

    @Test
    void replicasThatRegisteredWorkersInAnotherOrderCutTheSameRanges() {
        List<Worker> workers = TestWorkers.of(3);
        BucketPolicy a = new BucketPolicy(BucketConfig.defaults(),
                PolicyEnvironment.seeded(1).withFleet(new Fleet(null, null)));
        BucketPolicy b = new BucketPolicy(BucketConfig.defaults(),
                PolicyEnvironment.seeded(2).withFleet(new Fleet(null, null)));
        workers.forEach(a::onWorkerAdded);
        List.of(workers.get(2), workers.get(0), workers.get(1)).forEach(b::onWorkerAdded);
        assertThat(b.boundaries("unknown")).isEqualTo(a.boundaries("unknown"));
    }

    @Test
    void aloneTheRegistrationOrderStays() {
        List<Worker> workers = TestWorkers.of(3);
        BucketPolicy alone = new BucketPolicy(BucketConfig.defaults(), PolicyEnvironment.seeded(1));
        List.of(workers.get(2), workers.get(0), workers.get(1)).forEach(alone::onWorkerAdded);
        assertThat(alone.boundaries("unknown").orElseThrow().get(0).url()).isEqualTo(workers.get(2).url());
    }

    /** The replicas' shared map, as each replica sees it: one of them cuts. */
    private static final class SharedRanges {
        final Map<String, List<BucketRanges.Range>> published = new HashMap<>();

        BucketRanges replica(boolean cuts) {
            return new BucketRanges() {
                @Override
                public boolean cutsForFleet() {
                    return cuts;
                }

                @Override
                public void publish(String model, List<Range> ranges) {
                    published.put(model, ranges);
                }

                @Override
                public List<Range> latest(String model) {
                    return published.get(model);
                }
            };
        }
    }

    private final ManualTicker ticker = new ManualTicker();
    private final SharedRanges shared = new SharedRanges();

    private BucketPolicy replica(boolean cuts, List<Worker> workers) {
        BucketPolicy p = new BucketPolicy(new BucketConfig(100_000, 1.0001, Duration.ofSeconds(10)),
                PolicyEnvironment.of(ticker, 5).withFleet(new Fleet(null, null, shared.replica(cuts), null)));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private static void route(BucketPolicy p, List<Worker> workers, int... lengths) {
        for (int n : lengths) {
            p.select(workers, SelectionContext.ofText("a".repeat(n)));
        }
    }

    @Test
    void theReplicaThatCutsPublishesAndTheOthersAdoptItsRangesWhateverTheirOwnTraffic() {
        List<Worker> workers = TestWorkers.of(3);
        BucketPolicy leader = replica(true, workers);
        BucketPolicy follower = replica(false, workers);
        route(leader, workers, 5, 10, 15, 20, 24, 26);
        route(follower, workers, 900, 1000, 1100);                   // a different window: it would cut elsewhere

        leader.runMaintenance();
        follower.runMaintenance();

        List<Bucket.Boundary> cut = leader.boundaries("unknown").orElseThrow();
        assertThat(cut.stream().map(Bucket.Boundary::hi).toList()).containsExactly(20L, 26L, Long.MAX_VALUE);
        assertThat(follower.boundaries("unknown")).contains(cut);
        assertThat(follower.select(workers, SelectionContext.ofText("a".repeat(21))).worker())
                .isSameAs(workers.get(1));
    }

    @Test
    void aReplicaThatKnowsOtherWorkersKeepsItsOwnRanges() {
        List<Worker> workers = TestWorkers.of(3);
        BucketPolicy leader = replica(true, workers);
        BucketPolicy skewed = replica(false, workers.subList(0, 2));   // its discovery has not seen the third yet
        route(leader, workers, 5, 10, 15, 20, 24, 26);
        List<Bucket.Boundary> own = skewed.boundaries("unknown").orElseThrow();

        leader.runMaintenance();
        skewed.runMaintenance();

        assertThat(skewed.boundaries("unknown")).contains(own);
    }
}
