package dev.caravan.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * One full eviction pass ({@code evictTenantBySize}) over a tree of about 100 MB of heap: 8 worker tenants, each holding
 * its share of {@code tenants} customers' 2,000-character system prompts with several user turns, built fresh before
 * every measured pass. {@code keep} is the fraction of each tenant's characters the budget allows, so 0.5 evicts about
 * half the tree and 1.0 measures a pass with nothing over budget (the common periodic case).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g"})
public class TreeEvictionBenchmark {

    static final int WORKERS = 8;
    static final int TURNS = 8;

    @Param({"20000"})
    public int tenants;

    @Param({"0.5", "1.0"})
    public double keep;

    private ApproximateRadixTree tree;
    private long budget;

    @Setup(Level.Iteration)
    public void build() {
        tree = buildTree(tenants);
        long perTenant = tree.tenantCharCounts().values().stream().mapToLong(Long::longValue).max().orElse(0);
        budget = (long) (perTenant * keep);
    }

    /** The eviction workload's tree; also measured by {@link TreeMemory}. */
    static ApproximateRadixTree buildTree(int tenants) {
        ApproximateRadixTree t = new ApproximateRadixTree();
        for (int c = 0; c < tenants; c++) {
            String system = Prompts.systemPrompt(c, 2000);
            String conversation = system;
            for (int turn = 0; turn < TURNS; turn++) {
                conversation = conversation + Prompts.userTurn(c, turn);
                t.insert(conversation, "http://10.0.0." + (c % WORKERS + 1) + ":8000");
            }
        }
        return t;
    }

    @Benchmark
    public long evict() {
        return tree.evictTenantBySize(budget);
    }
}
