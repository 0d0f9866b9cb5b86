package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.ToLongFunction;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.MinLoadTieBreak;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/** cache_aware's least-loaded choice under {@code --min-load-tie-break}. */
class LeastLoadedTest {

    private final List<Worker> w = TestWorkers.of(4);

    /** A generator whose bounded draws are always {@code value}: 0 replaces the pick at every tie, 1 never does. */
    private static RandomGenerator always(int value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return value;
            }

            @Override
            public int nextInt(int bound) {
                return value;
            }
        };
    }

    private static ToLongFunction<Worker> footprints(Map<Worker, Long> chars) {
        return x -> chars.getOrDefault(x, 0L);
    }

    @Test
    void processedIsTheLaterSglangRuleFewerSelectionsThenTheEarlierWorker() {
        w.get(0).incrementProcessed();
        assertThat(LeastLoaded.pick(w, Worker::load, MinLoadTieBreak.PROCESSED, x -> 0, always(0)))
                .isSameAs(w.get(1));
    }

    @Test
    void footprintTakesTheLeastLoadedFirstThenTheSmallestTree() {
        load(w.get(0), 1);
        Map<Worker, Long> chars = Map.of(w.get(0), 0L, w.get(1), 500L, w.get(2), 100L, w.get(3), 300L);
        assertThat(LeastLoaded.pick(w, Worker::load, MinLoadTieBreak.FOOTPRINT, footprints(chars), always(0)))
                .isSameAs(w.get(2));
    }

    @Test
    void footprintTiesAreDrawnFromTheGeneratorNotTakenInListOrder() {
        Map<Worker, Long> chars = Map.of(w.get(0), 900L, w.get(1), 100L, w.get(2), 100L, w.get(3), 100L);
        assertThat(LeastLoaded.pick(w, Worker::load, MinLoadTieBreak.FOOTPRINT, footprints(chars), always(1)))
                .isSameAs(w.get(1));
        assertThat(LeastLoaded.pick(w, Worker::load, MinLoadTieBreak.FOOTPRINT, footprints(chars), always(0)))
                .isSameAs(w.get(3));
    }

    @Test
    void equallyLoadedEmptyWorkersAreChosenUniformly() {
        Random random = new Random(20);
        Map<Worker, Integer> counts = new HashMap<>();
        for (int i = 0; i < 4000; i++) {
            counts.merge(LeastLoaded.pick(w, Worker::load, MinLoadTieBreak.FOOTPRINT, x -> 0, random), 1,
                    Integer::sum);
        }
        assertThat(counts).hasSize(4);
        assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween(900, 1100));
    }
}
