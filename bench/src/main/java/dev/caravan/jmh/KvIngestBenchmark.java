package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;
import dev.caravan.policies.kv.PrefixMatches;
import dev.caravan.processors.kv.KvEndpoints;
import dev.caravan.processors.kv.KvEventBatch;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.kv.KvEventMessage;

/**
 * KV-event ingest into the block index, through the entry point of the KV-event route's {@code applyKvEvents} step
 * ({@link KvEventIngestor#onMessage}: sequence tracking, then every event of the batch applied to the index), and
 * lookups while it runs. {@code ranks} single-rank workers (block size 16) each hold {@value #LIVE} sequences of
 * {@value #BLOCKS} blocks plus a resident 128-block prompt (one of {@value #PROMPTS}, so ranks share prompts). One
 * batch, as an engine step publishes it, stores a new {@value #BLOCKS}-block sequence (new tokens, hashed by the index)
 * and removes the rank's oldest one: {@value #EVENTS} block events, so the index stays the same size. Batches go to
 * the ranks in turn, all on one thread. No event sinks (the gateway's parity check and tree calibration are not
 * measured).
 *
 * <ul>
 *   <li>{@code ingest}: block events per second on one thread, as fast as it goes, {@value #BATCHES} batches per
 *       call; its secondary metrics {@code events} and {@code cpuNanos} give the events per second of the thread's
 *       CPU time, which a shared machine's other load does not dilute;</li>
 *   <li>{@code lookupIdle}: one {@link KvBlockIndex#longestPrefixes} of a resident prompt plus 32 new blocks;</li>
 *   <li>{@code underIngest}: the same lookup on one thread while another ingests at {@code ingestRate} block events
 *       per second (paced; its mean time per batch says whether it kept the rate: {@value #EVENTS} events per batch).
 *       </li>
 * </ul>
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+AlwaysPreTouch"})
public class KvIngestBenchmark {

    static final int BLOCK_SIZE = 16;
    static final int BLOCKS = 16;
    static final int EVENTS = 2 * BLOCKS;
    static final int LIVE = 128;
    static final int BATCHES = 16;
    static final int PROMPTS = 16;
    private static final int PROMPT_BLOCKS = 128;
    private static final int TOKEN_POOL = 1024;

    @Param({"64", "256"})
    public int ranks;

    /** Block events per second the paced ingest of {@code underIngest} aims at. */
    @Param({"1000000"})
    public long ingestRate;

    private KvBlockIndex index;
    private KvEventIngestor ingestor;
    private String[] workerIds;
    private RankFeed[] feeds;
    private int[][] tokenPool;
    private long[][] lookups;
    private int nextRank;
    private int nextLookup;
    private long sequences;
    private long pacedStart;
    private long pacedBatches;

    /** One rank's publisher: its next engine id and sequence number, and its live sequences' ids (a ring). */
    private static final class RankFeed {
        long nextId;
        long sequence;
        final long[][] live = new long[LIVE][];
        int oldest;
    }

    @Setup
    public void setUp() {
        index = new KvBlockIndex();
        ingestor = new KvEventIngestor(index, List.of(), Duration.ofSeconds(5), System::nanoTime);
        SplittableRandom random = new SplittableRandom(1);
        tokenPool = new int[TOKEN_POOL][BLOCKS * BLOCK_SIZE];
        for (int[] t : tokenPool) {
            for (int i = 0; i < t.length; i++) {
                t[i] = random.nextInt(128_256);
            }
        }
        int[][] prompts = new int[PROMPTS][PROMPT_BLOCKS * BLOCK_SIZE];
        lookups = new long[PROMPTS][];
        for (int p = 0; p < PROMPTS; p++) {
            for (int i = 0; i < prompts[p].length; i++) {
                prompts[p][i] = random.nextInt(128_256);
            }
            int[] request = new int[prompts[p].length + 32 * BLOCK_SIZE];
            System.arraycopy(prompts[p], 0, request, 0, prompts[p].length);
            for (int i = prompts[p].length; i < request.length; i++) {
                request[i] = random.nextInt(128_256);
            }
            lookups[p] = BlockKeys.keys(request, BLOCK_SIZE, BlockKeys.PLAIN_ROOT);
        }
        workerIds = new String[ranks];
        feeds = new RankFeed[ranks];
        for (int r = 0; r < ranks; r++) {
            Worker w = Worker.builder("http://10.1." + (r / 250) + "." + (r % 250 + 1) + ":8000").id("w" + r).build();
            workerIds[r] = w.id();
            feeds[r] = new RankFeed();
            ingestor.register(w, new KvEndpoints(null, null));
            long[] ids = new long[PROMPT_BLOCKS];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = feeds[r].nextId++;
            }
            publish(r, List.of(KvEvent.BlockStored.of(ids, null, prompts[r % PROMPTS], BLOCK_SIZE)));
        }
        for (int i = 0; i < LIVE * ranks; i++) {
            batch();
        }
    }

    @TearDown
    public void tearDown() {
        ingestor.close();
    }

    private void publish(int r, List<KvEvent> events) {
        RankFeed f = feeds[r];
        ingestor.onMessage(workerIds[r], 0, new KvEventMessage("", f.sequence++,
                new KvEventBatch(0, events, null, 0)));
    }

    /** One engine step of the next rank: a new sequence stored, the oldest one (once the ring is full) removed. */
    private void batch() {
        int r = nextRank;
        nextRank = r + 1 == ranks ? 0 : r + 1;
        RankFeed f = feeds[r];
        long[] ids = new long[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) {
            ids[i] = f.nextId++;
        }
        int[] tokens = tokenPool[(int) (sequences % TOKEN_POOL)].clone();
        tokens[0] = (int) sequences++; // every sequence new
        KvEvent stored = KvEvent.BlockStored.of(ids, null, tokens, BLOCK_SIZE);
        long[] gone = f.live[f.oldest];
        f.live[f.oldest] = ids;
        f.oldest = f.oldest + 1 == LIVE ? 0 : f.oldest + 1;
        List<KvEvent> events = new ArrayList<>(2);
        events.add(stored);
        if (gone != null) {
            events.add(new KvEvent.BlockRemoved(gone, "GPU", null));
        }
        publish(r, events);
    }

    /** The ingest thread's block events and CPU time, summed over an iteration. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class CpuTime {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        public long events;
        public long cpuNanos;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(EVENTS * BATCHES)
    public void ingest(CpuTime cpu) {
        long start = CpuTime.THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < BATCHES; i++) {
            batch();
        }
        cpu.cpuNanos += CpuTime.THREADS.getCurrentThreadCpuTime() - start;
        cpu.events += EVENTS * BATCHES;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public PrefixMatches lookupIdle() {
        return lookup();
    }

    @Benchmark
    @Group("underIngest")
    @GroupThreads(1)
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public PrefixMatches lookupUnderIngest() {
        return lookup();
    }

    /** One batch, then a pause while ahead of {@code ingestRate} by more than 50 µs (parking is coarser than that). */
    @Benchmark
    @Group("underIngest")
    @GroupThreads(1)
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void pacedIngest() {
        long now = System.nanoTime();
        if (pacedBatches == 0) {
            pacedStart = now;
        }
        batch();
        long due = pacedStart + (long) (++pacedBatches * (EVENTS * 1e9 / ingestRate));
        long ahead = due - System.nanoTime();
        if (ahead > 50_000) {
            LockSupport.parkNanos(ahead);
        }
    }

    private PrefixMatches lookup() {
        int i = nextLookup++;
        return index.longestPrefixes(lookups[(i & Integer.MAX_VALUE) % PROMPTS], 0.8, 0.3);
    }
}
