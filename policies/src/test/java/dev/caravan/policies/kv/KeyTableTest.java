package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class KeyTableTest {

    @Test
    void agreesWithAHashMapUnderRandomInsertsAndDeletes() {
        KeyTable table = new KeyTable();
        Map<Long, long[]> reference = new HashMap<>();
        SplittableRandom random = new SplittableRandom(7);
        long[] universe = new long[5_000];
        for (int i = 0; i < universe.length; i++) {
            universe[i] = i % 7 == 0 ? i : random.nextLong(); // small keys collide in their home slots
        }
        for (int op = 0; op < 200_000; op++) {
            long key = universe[random.nextInt(universe.length)];
            if (random.nextInt(3) == 0) {
                table.update(key, v -> null);
                reference.remove(key);
            } else {
                long[] value = {op};
                table.update(key, v -> value);
                reference.put(key, value);
            }
        }
        for (long key : universe) {
            assertThat(table.get(key)).isSameAs(reference.get(key));
        }
        assertThat(table.size()).isEqualTo(reference.size());
    }

    @Test
    void shrinksWhenEmptiedAndStillFindsWhatIsLeft() {
        KeyTable table = new KeyTable();
        for (long k = 0; k < 100_000; k++) {
            long key = k;
            table.update(key, v -> new long[] {key});
        }
        long grown = table.capacity();
        for (long k = 1; k < 100_000; k++) {
            table.update(k, v -> null);
        }
        assertThat(grown).isGreaterThan(100_000);
        assertThat(table.capacity()).isEqualTo(KeyTable.STRIPES * 64L); // every stripe back to its initial size
        assertThat(table.get(0)).containsExactly(0);
        assertThat(table.size()).isEqualTo(1);
    }

    @Test
    void readersNeverSeeAWrongValueWhileWritersChurn() throws InterruptedException {
        KeyTable table = new KeyTable();
        long stable = 42;
        long[] stableValue = {4242};
        table.update(stable, v -> stableValue);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger wrong = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int seed = t;
            threads.add(new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                for (int i = 0; i < 300_000; i++) {
                    long key = r.nextLong(1 << 16) + 1000;
                    if (r.nextBoolean()) {
                        table.update(key, v -> new long[] {key});
                    } else {
                        table.update(key, v -> null);
                    }
                }
            }));
        }
        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                if (table.get(stable) != stableValue) {
                    wrong.incrementAndGet();
                }
                long key = 1000 + (System.nanoTime() & 0xFFFF);
                long[] v = table.get(key);
                if (v != null && v[0] != key) {
                    wrong.incrementAndGet();
                }
            }
        });
        reader.start();
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        stop.set(true);
        reader.join();

        assertThat(wrong).hasValue(0);
    }
}
