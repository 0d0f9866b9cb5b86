package dev.caravan.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

import dev.caravan.policies.ConsistentHashingConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * One consistent_hashing decision by {@code X-SMG-Routing-Key}: hash the key (xxh3), binary-search the ring of 150
 * virtual nodes per worker, walk to the first healthy candidate. 1,024 distinct keys, cycled.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class ConsistentHashBenchmark {

    private static final int KEYS = 1024;

    @Param({"8", "64"})
    public int workerCount;

    private LoadBalancingPolicy policy;
    private List<Worker> workers;
    private SelectionContext[] requests;
    private int next;

    @Setup
    public void setUp() {
        List<Worker> ws = new ArrayList<>();
        for (int i = 0; i < workerCount; i++) {
            ws.add(Worker.builder("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000").build());
        }
        workers = List.copyOf(ws);
        policy = PolicyFactory.create(ConsistentHashingConfig.defaults(), PolicyEnvironment.seeded(1));
        workers.forEach(policy::onWorkerAdded);
        requests = new SelectionContext[KEYS];
        for (int i = 0; i < KEYS; i++) {
            requests[i] = new SelectionContext(null, "", null,
                    Map.of(SelectionContext.ROUTING_KEY_HEADER, "session-" + i + "-user@example.com"));
        }
    }

    @Benchmark
    public Decision lookup() {
        return policy.select(workers, requests[next++ & (KEYS - 1)]);
    }
}
