package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class RankBlocksTest {

    @Test
    void findsEveryEntryThroughRandomInsertsAndDeletes() {
        RankBlocks blocks = new RankBlocks();
        Map<Long, Long> reference = new LinkedHashMap<>();
        SplittableRandom random = new SplittableRandom(3);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            ids.add(i % 5 == 0 ? (long) i : random.nextLong());
        }
        for (int op = 0; op < 100_000; op++) {
            long id = ids.get(random.nextInt(ids.size()));
            int slot = blocks.find(id);
            if (slot >= 0) {
                assertThat(blocks.keyAt(slot)).isEqualTo(reference.get(id));
                blocks.delete(slot);
                reference.remove(id);
            } else {
                blocks.insert(id, op, 1);
                reference.put(id, (long) op);
            }
        }
        assertThat(blocks.size()).isEqualTo(reference.size());
        reference.forEach((id, key) -> assertThat(blocks.keyAt(blocks.find(id))).isEqualTo(key));
    }

    @Test
    void oldestIsTheEarliestStoredEntryStillPresent() {
        RankBlocks blocks = new RankBlocks();
        for (long id = 1; id <= 5; id++) {
            blocks.insert(id, id * 10, 1);
        }
        blocks.delete(blocks.find(1));
        blocks.delete(blocks.find(2));
        blocks.insert(2, 99, 1); // stored again: now the newest

        assertThat(blocks.keyAt(blocks.oldest())).isEqualTo(30);
        blocks.delete(blocks.oldest());
        blocks.delete(blocks.oldest());
        blocks.delete(blocks.oldest());
        assertThat(blocks.keyAt(blocks.oldest())).isEqualTo(99);
    }

    @Test
    void storageOrderSurvivesChurnThatCompactsTheQueue() {
        RankBlocks blocks = new RankBlocks();
        blocks.insert(-1, -1, 1); // the oldest, never removed
        for (long id = 0; id < 50_000; id++) {
            blocks.insert(id, id, 1);
            blocks.delete(blocks.find(id));
        }
        blocks.insert(7, 7, 1);

        assertThat(blocks.keyAt(blocks.oldest())).isEqualTo(-1);
        blocks.delete(blocks.oldest());
        assertThat(blocks.keyAt(blocks.oldest())).isEqualTo(7);
        assertThat(blocks.arrayBytes()).isLessThan(16 * 4_096);
    }

    @Test
    void masksKeepOneBitPerTierAndGroup() {
        long gpu0 = RankBlocks.bit(KvTier.GPU, 0);
        long cpu0 = RankBlocks.bit(KvTier.CPU, 0);
        long gpu3 = RankBlocks.bit(KvTier.GPU, 3);

        assertThat(RankBlocks.groupsOn(gpu0 | gpu3 | cpu0, KvTier.GPU)).isEqualTo(0b1001);
        assertThat(RankBlocks.groupsOn(gpu0 | gpu3 | cpu0, KvTier.CPU)).isEqualTo(0b1);
        assertThat(RankBlocks.bit(KvTier.DISK, 99)).isEqualTo(RankBlocks.bit(KvTier.DISK, 15));
    }
}
