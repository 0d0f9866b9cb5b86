package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class RecentlyRemovedTest {

    @Test
    void resolvesAnIdRemovedLastUntilItIsStoredAgain() {
        RecentlyRemoved r = new RecentlyRemoved(4);
        r.put(10, 100);
        assertThat(r.contains(10)).isTrue();
        assertThat(r.get(10)).isEqualTo(100);
        assertThat(r.remove(10)).isTrue();
        assertThat(r.contains(10)).isFalse();
        assertThat(r.remove(10)).isFalse();
    }

    @Test
    void forgetsTheOldestRemovalBeyondItsCapacity() {
        RecentlyRemoved r = new RecentlyRemoved(3);
        for (long id = 1; id <= 4; id++) {
            r.put(id, id * 10);
        }
        assertThat(r.contains(1)).isFalse();
        assertThat(r.get(2)).isEqualTo(20);
        assertThat(r.get(4)).isEqualTo(40);
    }

    @Test
    void aSecondRemovalOfTheSameIdUpdatesItsKey() {
        RecentlyRemoved r = new RecentlyRemoved(3);
        r.put(7, 1);
        r.put(7, 2);
        assertThat(r.get(7)).isEqualTo(2);
    }

    @Test
    void clearForgetsEverything() {
        RecentlyRemoved r = new RecentlyRemoved(3);
        r.put(1, 1);
        r.put(2, 2);
        r.clear();
        assertThat(r.contains(1)).isFalse();
        assertThat(r.contains(2)).isFalse();
        r.put(3, 3);
        assertThat(r.get(3)).isEqualTo(3);
    }

    /** Against a model: the last {@code capacity} removals, each forgotten when its id is stored again. */
    @Test
    void agreesWithARingOfTheLastRemovalsOverRandomOperations() {
        SplittableRandom random = new SplittableRandom(3);
        int capacity = 64;
        RecentlyRemoved r = new RecentlyRemoved(capacity);
        Deque<long[]> ring = new ArrayDeque<>(); // {id, live 1/0}
        Map<Long, Long> live = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            long id = random.nextInt(300);
            if (random.nextBoolean()) {
                if (live.containsKey(id)) {
                    live.put(id, (long) step);
                } else {
                    if (ring.size() == capacity) {
                        long[] oldest = ring.removeFirst();
                        if (oldest[1] == 1) {
                            live.remove(oldest[0]);
                        }
                    }
                    ring.addLast(new long[] {id, 1});
                    live.put(id, (long) step);
                }
                r.put(id, step);
            } else {
                boolean was = live.remove(id) != null;
                if (was) {
                    for (long[] e : ring) {
                        if (e[0] == id && e[1] == 1) {
                            e[1] = 0;
                        }
                    }
                }
                assertThat(r.remove(id)).as("step " + step).isEqualTo(was);
            }
            long probe = random.nextInt(300);
            assertThat(r.contains(probe)).as("step " + step).isEqualTo(live.containsKey(probe));
            if (live.containsKey(probe)) {
                assertThat(r.get(probe)).isEqualTo(live.get(probe));
            }
        }
    }
}
