package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class LongCountsTest {

    @Test
    void agreesWithAHashMapOfCounts() {
        LongCounts counts = new LongCounts();
        Map<Long, Integer> reference = new HashMap<>();
        SplittableRandom random = new SplittableRandom(11);
        long[] universe = new long[2_000];
        for (int i = 0; i < universe.length; i++) {
            universe[i] = i % 3 == 0 ? i : random.nextLong();
        }
        for (int op = 0; op < 100_000; op++) {
            long key = universe[random.nextInt(universe.length)];
            if (random.nextInt(5) < 2) {
                counts.remove(key);
                reference.computeIfPresent(key, (k, c) -> c == 1 ? null : c - 1);
            } else {
                counts.add(key);
                reference.merge(key, 1, Integer::sum);
            }
        }
        assertThat(counts.size()).isEqualTo(reference.size());
        for (long key : universe) {
            assertThat(counts.contains(key)).isEqualTo(reference.containsKey(key));
        }
    }

    @Test
    void removingAnAbsentKeyChangesNothing() {
        LongCounts counts = new LongCounts();
        counts.add(5);

        counts.remove(6);

        assertThat(counts.size()).isEqualTo(1);
        assertThat(counts.contains(5)).isTrue();
    }
}
