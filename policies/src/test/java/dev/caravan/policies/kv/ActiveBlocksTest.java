package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ActiveBlocksTest {

    private final ActiveBlocks active = new ActiveBlocks();

    @Test
    void countsKeysSharedByRequestsInFlightOnce() {
        Runnable a = active.add("w", 0, new long[] {1, 2, 3});
        Runnable b = active.add("w", 0, new long[] {1, 2, 4});

        assertThat(active.active("w", 0)).isEqualTo(4);
        assertThat(active.potential("w", 0, new long[] {1, 5, 6})).isEqualTo(6);

        a.run();
        assertThat(active.active("w", 0)).isEqualTo(3);
        b.run();
        assertThat(active.active("w", 0)).isZero();
    }

    @Test
    void releasingTwiceReleasesOnce() {
        Runnable a = active.add("w", 0, new long[] {1});
        active.add("w", 0, new long[] {1});

        a.run();
        a.run();

        assertThat(active.active("w", 0)).isEqualTo(1);
    }

    @Test
    void ranksAndWorkersAreSeparate() {
        active.add("w", 0, new long[] {1});
        active.add("w", 1, new long[] {1, 2});
        active.add("v", 0, new long[] {1});

        assertThat(active.activeByWorker()).isEqualTo(Map.of("w", 3, "v", 1));
        assertThat(active.potential("x", 0, new long[] {7, 8})).isEqualTo(2);

        active.removeWorker("w");
        assertThat(active.activeByWorker()).isEqualTo(Map.of("v", 1));
    }
}
