package dev.caravan.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.caravan.policies.Decision;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvAwarePolicy;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;
import dev.caravan.policies.text.PseudoTokenizer;

/**
 * One kv_aware decision on one thread (block keys of the request, the index walk, the cost of every worker from its
 * active blocks, the release of the request's active blocks), with the b2b working set resident: 8 workers each holding
 * 104 tenants' prompts of {@code promptTokens} tokens (the b2b scenario's M), stored as engines publish them. Each
 * measured request is a resident tenant's prompt (a pool, cycled); its lease is released at once. Tokens are given, so
 * tokenization is not measured. {@code blockSize} 1 is SGLang's default page size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Threads(1)
public class KvAwareDecisionBenchmark {

    private static final int WORKERS = 8;
    private static final int PROMPTS_PER_WORKER = 104;

    @Param({"2080"})
    public int promptTokens;

    @Param({"16", "1"})
    public int blockSize;

    /** kv_aware's {@code --kv-discount-shared-prefix}: the per-key pass counts walked and recorded per decision. */
    @Param({"true", "false"})
    public boolean discountSharedPrefix;

    private KvAwarePolicy policy;
    private List<Worker> workers;
    private SelectionContext[] requests;
    private int next;

    @Setup
    public void setUp() {
        KvBlockIndex index = new KvBlockIndex(1 << 20);
        workers = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            workers.add(Worker.builder("http://10.0.0." + (i + 1) + ":8000").id("w" + i).build());
        }
        workers = List.copyOf(workers);
        SplittableRandom random = new SplittableRandom(1);
        requests = new SelectionContext[WORKERS * PROMPTS_PER_WORKER];
        for (int p = 0; p < requests.length; p++) {
            int[] tokens = new int[promptTokens];
            for (int i = 0; i < tokens.length; i++) {
                tokens[i] = random.nextInt(128_256);
            }
            int blocks = promptTokens / blockSize;
            long[] ids = new long[blocks];
            for (int b = 0; b < blocks; b++) {
                ids[b] = random.nextLong();
            }
            index.apply(workers.get(p % WORKERS).id(), 0, KvEvent.BlockStored.of(ids, null,
                    java.util.Arrays.copyOf(tokens, blocks * blockSize), blockSize));
            requests[p] = new SelectionContext(null, "", tokens, java.util.Map.of());
        }
        policy = new KvAwarePolicy(KvAwareConfig.defaults().withBlockSize(blockSize)
                .withDiscountSharedPrefix(discountSharedPrefix), index, new PseudoTokenizer(),
                null, new java.util.Random(1));
    }

    @Benchmark
    public Worker decide() {
        Decision d = policy.select(workers, requests[next++ % requests.length]);
        d.acquire().release();
        return d.worker();
    }
}
