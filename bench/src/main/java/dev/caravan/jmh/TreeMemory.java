package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import dev.caravan.bench.results.JmhResults;
import dev.caravan.bench.results.MeasuredRows;
import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * Measures the radix tree's heap footprint per stored character.
 *
 * <p>Method: force full collections until the used heap stops shrinking, read it, build a tree (input strings become
 * garbage as soon as they are inserted: labels are copies), collect again until stable with the tree still reachable,
 * read again. The difference divided by the tree's {@link ApproximateRadixTree#storedChars()} (distinct characters in
 * edge labels, shared prefixes counted once) is bytes per stored character; divided by the sum of tenant counts it is
 * bytes per routed character. Run with a fixed heap and without other allocation; {@code --results FILE} merges the
 * rows (structure {@code radix tree}, keyed by structure and shape) into the results page's memory section:
 * {@code java -Xms4g -Xmx4g -cp bench/target/caravan-bench.jar dev.caravan.jmh.TreeMemory
 * --results docs/bench/results/memory.json}.
 *
 * <p>{@code --curve} measures {@link CacheAwareDecisionBenchmark}'s trees instead, at each of
 * {@link #CURVE_WORKERS} workers and {@link #CURVE_CHARS} prompt characters (its tenant counts), and merges the bytes
 * per stored character into the cache_aware curve's rows ({@code bytes_per_char_<workers>}, keyed by prompt):
 * {@code java -Xms4g -Xmx4g -cp bench/target/caravan-bench.jar dev.caravan.jmh.TreeMemory --curve
 * --results docs/bench/results/cache-aware-curve.json}.
 */
public final class TreeMemory {

    /** The rows' {@code structure}. */
    static final String STRUCTURE = "radix tree";

    private TreeMemory() {
    }

    /** The cache_aware curve's worker counts. */
    static final int[] CURVE_WORKERS = {8, 64, 256};
    /** The cache_aware curve's prompt lengths, in characters. */
    static final int[] CURVE_CHARS = {8_000, 128_000, 512_000};

    public static void main(String[] args) {
        MeasuredRows run = MeasuredRows.start(TreeMemory.class, args);
        if (run.args().contains("--curve")) {
            curve(run);
            return;
        }
        run.add(report("1,000 tenants × 2,000-char system prompt + 3 turns, 8 workers",
                () -> decisionTree(1000, 2000)));
        run.add(report("1,000 tenants × 10,000-char system prompt + 3 turns, 8 workers",
                () -> decisionTree(1000, 10000)));
        run.add(report("20,000 conversations × 2,000-char system prompt + 8 turns",
                () -> TreeEvictionBenchmark.buildTree(20_000)));
        run.add(report("1,000 tenants × 2,000 CJK chars (UTF-16 labels)", () -> cjkTree(1000, 2000)));
        run.write(List.of("structure", "shape"), List.of(STRUCTURE));
    }

    static ApproximateRadixTree decisionTree(int tenants, int chars) {
        return decisionTree(tenants, chars, 8);
    }

    /** {@link CacheAwareDecisionBenchmark}'s pre-fill: each tenant's prompt and three turns under worker t % workers. */
    static ApproximateRadixTree decisionTree(int tenants, int chars, int workers) {
        ApproximateRadixTree t = new ApproximateRadixTree();
        for (int c = 0; c < tenants; c++) {
            String system = Prompts.systemPrompt(c, chars);
            for (int turn = 0; turn < 3; turn++) {
                t.insert(system + Prompts.userTurn(c, turn), CacheAwareDecisionBenchmark.workerUrl(c % workers));
            }
        }
        return t;
    }

    /** The curve's cells: a row per prompt length, bytes per stored character at each worker count. */
    private static void curve(MeasuredRows run) {
        for (int chars : CURVE_CHARS) {
            Map<String, Object> row = JmhResults.promptRow(chars);
            for (int workers : CURVE_WORKERS) {
                int tenants = CacheAwareDecisionBenchmark.residentTenants(1000, workers, chars);
                Map<String, Object> measured = report(String.format(Locale.ROOT,
                        "%,d tenants × %,d-char system prompt + 3 turns, %d workers", tenants, chars, workers),
                        () -> decisionTree(tenants, chars, workers));
                row.put(JmhResults.BYTES_KEY + workers, measured.get("bytes_per_unit"));
            }
            run.add(row);
        }
        run.writeCells(List.of("prompt"), List.of("tree memory"), JmhResults::cacheAwareColumns);
    }

    static ApproximateRadixTree cjkTree(int tenants, int chars) {
        ApproximateRadixTree t = new ApproximateRadixTree();
        for (int c = 0; c < tenants; c++) {
            String latin = Prompts.systemPrompt(c, chars);
            StringBuilder sb = new StringBuilder(chars);
            for (int i = 0; i < latin.length(); i++) {
                sb.append((char) (0x4E00 + latin.charAt(i)));
            }
            t.insert(sb.toString(), "http://10.0.0." + (c % 8 + 1) + ":8000");
        }
        return t;
    }

    /** Measures one tree, prints it and returns its memory-section row. */
    private static Map<String, Object> report(String shape, Supplier<ApproximateRadixTree> build) {
        long before = settledUsedHeap();
        ApproximateRadixTree tree = build.get();
        long after = settledUsedHeap();
        long bytes = after - before;
        long stored = tree.storedChars();
        long routed = tree.tenantCharCounts().values().stream().mapToLong(Long::longValue).sum();
        System.out.printf("%s%n  heap %.1f MB, nodes %,d, stored chars %,d, tenant chars %,d%n"
                        + "  %.2f bytes per stored char, %.2f bytes per tenant char%n",
                shape, bytes / 1e6, tree.nodeCount(), stored, routed, (double) bytes / stored, (double) bytes / routed);
        return row(STRUCTURE, shape, bytes, tree.nodeCount(), (double) bytes / stored, "stored char");
    }

    /** A memory-section row: heap in MB to one decimal, bytes per unit to two. */
    static Map<String, Object> row(String structure, String shape, long bytes, long entries, double bytesPerUnit,
                                   String unit) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("structure", structure);
        row.put("shape", shape);
        row.put("heap_mb", Math.round(bytes / 1e5) / 10.0);
        row.put("entries", entries);
        row.put("bytes_per_unit", Math.round(bytesPerUnit * 100) / 100.0);
        row.put("unit", unit);
        return row;
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
