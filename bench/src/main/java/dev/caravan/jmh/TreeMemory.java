package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.function.Supplier;

import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * Measures the radix tree's heap footprint per stored character.
 *
 * <p>Method: force full collections until the used heap stops shrinking, read it, build a tree (input strings become
 * garbage as soon as they are inserted: labels are copies), collect again until stable with the tree still reachable,
 * read again. The difference divided by the tree's {@link ApproximateRadixTree#storedChars()} (distinct characters in
 * edge labels, shared prefixes counted once) is bytes per stored character; divided by the sum of tenant counts it is
 * bytes per routed character. Run with a fixed heap and without other allocation:
 * {@code java -Xms4g -Xmx4g -cp it-tests/target/caravan-bench.jar dev.caravan.jmh.TreeMemory}.
 */
public final class TreeMemory {

    private TreeMemory() {
    }

    public static void main(String[] args) {
        report("1,000 tenants x 2,000-char system prompt + 3 turns, 8 workers (decision benchmark)",
                () -> decisionTree(1000, 2000));
        report("1,000 tenants x 10,000-char system prompt + 3 turns, 8 workers (decision benchmark)",
                () -> decisionTree(1000, 10000));
        report("20,000 conversations x 2,000-char system prompt + 8 turns, 8 workers (eviction benchmark)",
                () -> TreeEvictionBenchmark.buildTree(20_000));
        report("1,000 tenants x 2,000 CJK chars (UTF-16 labels), 8 workers", () -> cjkTree(1000, 2000));
    }

    static ApproximateRadixTree decisionTree(int tenants, int chars) {
        ApproximateRadixTree t = new ApproximateRadixTree();
        for (int c = 0; c < tenants; c++) {
            String system = Prompts.systemPrompt(c, chars);
            for (int turn = 0; turn < 3; turn++) {
                t.insert(system + Prompts.userTurn(c, turn), "http://10.0.0." + (c % 8 + 1) + ":8000");
            }
        }
        return t;
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

    private static void report(String name, Supplier<ApproximateRadixTree> build) {
        long before = settledUsedHeap();
        ApproximateRadixTree tree = build.get();
        long after = settledUsedHeap();
        long bytes = after - before;
        long stored = tree.storedChars();
        long routed = tree.tenantCharCounts().values().stream().mapToLong(Long::longValue).sum();
        System.out.printf("%s%n  heap %.1f MB, nodes %,d, stored chars %,d, tenant chars %,d%n"
                        + "  %.2f bytes per stored char, %.2f bytes per tenant char%n",
                name, bytes / 1e6, tree.nodeCount(), stored, routed, (double) bytes / stored, (double) bytes / routed);
        if (tree.nodeCount() < 0) {
            System.out.println("unreachable; keeps the tree live until here");
        }
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
