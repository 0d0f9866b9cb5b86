package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
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
}
