package dev.caravan.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.kv.KvAwarePolicy;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;
import dev.caravan.policies.text.PseudoTokenizer;

/**
 * One kv_aware decision on one thread (block keys of the request, the index lookup, the cost of every engine rank
 * from its active blocks, the bookkeeping of the request's active blocks), with a working set resident: {@code ranks}
 * single-rank workers holding tenants' prompts of {@code promptTokens} tokens stored as engines publish them, prompt
 * p on rank p mod {@code ranks}: 104 per rank (the b2b scenario's M) when that fits in about {@value #FILL_BLOCKS}
 * index entries, else as many as fit (at least one), so long prompts leave some ranks empty. Each measured request is one of {@value #REQUEST_POOL} resident prompts (spread over the ranks,
 * cycled); its lease is released {@value #IN_FLIGHT} decisions later, so that many requests are in flight. Tokens are
 * given, so tokenization is not measured. {@code blockSize} 1 is SGLang's default page size. The heap is fixed and
 * touched at start, as a gateway's should be: on a host that reclaims idle memory, a heap left to grow turns a
 * request's fresh arrays into page faults that cost more than the decision.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class KvAwareDecisionBenchmark {

    private static final int MAX_PROMPTS_PER_RANK = 104;
    /** Index entries the fill aims at (about 200 MB at ~100 bytes an entry). */
    static final int FILL_BLOCKS = 2_000_000;
    static final int REQUEST_POOL = 64;
    static final int IN_FLIGHT = 16;

    @Param({"8"})
    public int ranks;

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
    private final WorkerLease[] inFlight = new WorkerLease[IN_FLIGHT];
    private int next;

    @Setup
    public void setUp() {
        KvBlockIndex index = new KvBlockIndex(1 << 22);
        workers = new ArrayList<>();
        for (int i = 0; i < ranks; i++) {
            workers.add(Worker.builder("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000").id("w" + i)
                    .build());
        }
        workers = List.copyOf(workers);
        int blocks = promptTokens / blockSize;
        SplittableRandom random = new SplittableRandom(1);
        int prompts = (int) Math.max(1, Math.min((long) ranks * MAX_PROMPTS_PER_RANK, FILL_BLOCKS / blocks));
        int pool = Math.min(REQUEST_POOL, prompts);
        requests = new SelectionContext[pool];
        for (int p = 0; p < prompts; p++) {
            int[] tokens = new int[promptTokens];
            for (int i = 0; i < tokens.length; i++) {
                tokens[i] = random.nextInt(128_256);
            }
            long[] ids = new long[blocks];
            for (int b = 0; b < blocks; b++) {
                ids[b] = random.nextLong();
            }
            index.apply(workers.get(p % ranks).id(), 0, KvEvent.BlockStored.of(ids, null,
                    Arrays.copyOf(tokens, blocks * blockSize), blockSize));
            // the pool spreads over the ranks: prompts p = 0, prompts/pool, 2 prompts/pool, ...
            if (p % (prompts / pool) == 0 && p / (prompts / pool) < pool) {
                requests[p / (prompts / pool)] = new SelectionContext(null, "", tokens, Map.of());
            }
        }
        policy = new KvAwarePolicy(KvAwareConfig.defaults().withBlockSize(blockSize)
                .withDiscountSharedPrefix(discountSharedPrefix), index, new PseudoTokenizer(),
                null, new Random(1));
    }

    @Benchmark
    public Worker decide() {
        int i = next++;
        Decision d = policy.select(workers, requests[i % requests.length]);
        WorkerLease lease = d.acquire();
        WorkerLease old = inFlight[i % IN_FLIGHT];
        if (old != null) {
            old.release();
        }
        inFlight[i % IN_FLIGHT] = lease;
        return d.worker();
    }
}
