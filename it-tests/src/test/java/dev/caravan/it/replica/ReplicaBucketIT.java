package dev.caravan.it.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.fleet.BucketRanges;
import dev.caravan.policies.internal.BucketPolicy;

/**
 * Three bucket replicas syncing through Hazelcast that each see different prompt lengths: the oldest cuts the length
 * ranges from its window and publishes them, the others adopt them, so every replica sends a length to the same worker.
 */
class ReplicaBucketIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.defaultMaxTokens(1));

    private static SyncFleet fleet;

    @BeforeAll
    static void startFleet() {
        fleet = new SyncFleet(3, SIMS.urls(), "--policy", "bucket", "--bucket-adjust-interval", "1").start();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SyncFleet.member(fleet.replica(0)).getCluster().getMembers().size() == 3);
    }

    @AfterAll
    static void stopFleet() {
        if (fleet != null) {
            fleet.close();
        }
    }

    private static void send(GatewayHarness replica, int from, int step) {
        for (int i = 0; i < 10; i++) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("model", SIMS.model());
            body.put("prompt", "x".repeat(from + i * step));
            assertThat(replica.client().postJson("/v1/completions", GatewayClient.json(body)).statusCode())
                    .isEqualTo(200);
        }
    }

    private static Map<String, List<BucketRanges.Range>> ranges(int replica) {
        return ((BucketPolicy) fleet.replica(replica).gateway().beans().policies().poolFor(SIMS.model()).policy())
                .ranges();
    }

    @Test
    void everyReplicaTakesTheLengthRangesTheOldestReplicaCut() {
        int oldest = fleet.oldest();
        int other = (oldest + 1) % 3;
        Map<String, List<BucketRanges.Range>> initial = ranges(oldest);
        send(fleet.replica(oldest), 100, 100);   // short prompts: the oldest member cuts its ranges from these
        send(fleet.replica(other), 5_000, 500);  // long ones: alone, this replica would cut far higher ranges

        // the ranges are cut from a window as long as --bucket-adjust-interval (1 s), and maintenance runs on a 1 s
        // timer only once a full interval has passed (every 2 ticks), so ten quick prompts can have left the window
        // before the cut: keep the oldest replica's window filled with short prompts until it has cut
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            send(fleet.replica(oldest), 100, 100);
            Map<String, List<BucketRanges.Range>> cut = ranges(oldest);
            assertThat(cut).isNotEqualTo(initial);
            assertThat(ranges(0)).isEqualTo(cut);
            assertThat(ranges(1)).isEqualTo(cut);
            assertThat(ranges(2)).isEqualTo(cut);
        });
        // cut from the oldest member's short prompts (at most 1,000 chars), not from the other's long ones
        assertThat(ranges(oldest).values().iterator().next().get(0).hi()).isLessThan(1_000);
    }
}
