package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

import dev.caravan.bench.results.MeasuredRows;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;

/**
 * Measures the KV block index's heap footprint per (block, engine rank) entry: the shared key table, the per-rank
 * engine-id maps with their storage-order queues, and the holder bit sets.
 *
 * <p>Method: force full collections until the used heap stops shrinking, read it, fill an index through
 * {@link KvBlockIndex#apply} with {@code BlockStored} events as an engine publishes them (runs of 16 chained blocks of
 * 16 random token ids under random engine ids; the events become garbage once applied), collect again until stable
 * with the index reachable, read again. The difference divided by the entries ({@code residentBlocks} summed over
 * workers) is bytes per entry. Run with a fixed heap and nothing else allocating; {@code --results FILE} merges the
 * rows (structure {@code KV block index}, keyed by structure and shape) into the results page's memory section:
 * {@code java -Xms4g -Xmx4g -cp bench/target/caravan-bench.jar dev.caravan.jmh.KvIndexMemory
 * --results docs/bench/results/memory.json}.
 */
public final class KvIndexMemory {

    private static final int BLOCK = 16;
    private static final int RUN = 16;

    /** The rows' {@code structure}. */
    static final String STRUCTURE = "KV block index";

    private KvIndexMemory() {
    }

    public static void main(String[] args) {
        MeasuredRows run = MeasuredRows.start(KvIndexMemory.class, args);
        int blocks = KvBlockIndex.DEFAULT_MAX_BLOCKS_PER_RANK;
        run.add(report(String.format(Locale.ROOT, "8 workers × %,d blocks (the default bound), none shared",
                blocks), () -> fill(8, blocks, false)));
        run.add(report(String.format(Locale.ROOT, "8 workers × %,d blocks, every worker the same blocks",
                blocks), () -> fill(8, blocks, true)));
        run.add(report("64 workers × 16,384 blocks, none shared", () -> fill(64, 16_384, false)));
        run.write(List.of("structure", "shape"), List.of(STRUCTURE));
    }

    /** Every worker stores {@code blocks} blocks; with {@code shared} they store the same token sequences. */
    static KvBlockIndex fill(int workers, int blocks, boolean shared) {
        KvBlockIndex index = new KvBlockIndex();
        SplittableRandom ids = new SplittableRandom(1);
        for (int w = 0; w < workers; w++) {
            SplittableRandom tokens = new SplittableRandom(shared ? 2 : 2 + w);
            for (int run = 0; run < blocks / RUN; run++) {
                long[] hashes = new long[RUN];
                int[] t = new int[RUN * BLOCK];
                for (int i = 0; i < RUN; i++) {
                    hashes[i] = ids.nextLong();
                }
                for (int i = 0; i < t.length; i++) {
                    t[i] = tokens.nextInt(128_256);
                }
                index.apply("worker-" + w, 0, KvEvent.BlockStored.of(hashes, null, t, BLOCK));
            }
        }
        return index;
    }

    /** Measures one index, prints it and returns its memory-section row. */
    private static Map<String, Object> report(String shape, Supplier<KvBlockIndex> build) {
        long before = settledUsedHeap();
        KvBlockIndex index = build.get();
        long after = settledUsedHeap();
        long bytes = after - before;
        long entries = index.residentBlockCounts().values().stream().mapToLong(Integer::longValue).sum();
        System.out.printf("%s%n  heap %.1f MB, entries %,d, distinct keys %,d, %.1f bytes per (block, rank) entry%n",
                shape, bytes / 1e6, entries, index.distinctBlocks(), (double) bytes / entries);
        return TreeMemory.row(STRUCTURE, shape, bytes, entries, (double) bytes / entries, "entry");
    }

    private static long settledUsedHeap() {
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            long used = mem.getHeapMemoryUsage().getUsed();
            if (Math.abs(last - used) < 64 * 1024) {
                return used;
            }
            last = used;
        }
        return last;
    }
}
