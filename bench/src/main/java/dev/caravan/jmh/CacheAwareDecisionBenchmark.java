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

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.Fleet;
import dev.caravan.policies.fleet.FleetPrefixIndex;
import dev.caravan.policies.fleet.FleetPrefixes;
import dev.caravan.policies.fleet.PrefixHasher;
import dev.caravan.policies.tree.ApproximateRadixTree;
import dev.caravan.policies.tree.OwnerRule;

/**
 * One cache_aware decision (healthy filter, imbalance guard, prefix match, insert) on one thread, with 1,000 tenants'
 * prompts resident over {@code workers} workers: each tenant's system prompt of {@code promptChars} characters plus
 * three earlier turns is already in the tree under worker {@code tenant % workers}. Each measured request is a tenant's
 * system prompt plus a new user turn (a pool of 4,096, cycled), so the decision is the hot path: a long match, a hit, a
 * short insert. Sampled, so the median (p0.50) is reported.
 *
 * <p>Long prompts keep the heap bounded: past {@value #RESIDENT_CHARS} resident characters the tenants are fewer (but
 * never fewer than the workers, so each holds one), and the request pool shrinks to {@value #POOL_CHARS} characters
 * (at least {@value #MIN_POOL} requests): at 128,000 characters 500 tenants and 256 requests, at 512,000 characters 125
 * tenants (256 with 256 workers) and 256 requests.
 *
 * <p>{@code treeBudget=engine} sizes each worker's budget to what it holds after the pre-fill, as
 * {@code max-tree-size auto} does from the engine's KV capacity, so every decision's insert counts towards the next
 * eviction on insert.
 *
 * <p>{@code fleet=on} adds what replica sync costs on the request path: the routing text hashed at its geometric
 * boundaries (keyed HMAC), the fleet prefix index looked up and written (pre-filled with the same tenants), and the
 * decision handed to an outbox (here discarded; the sync module drains it off the request path).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Threads(1)
public class CacheAwareDecisionBenchmark {

    private static final int POOL = 4096;
    private static final int MIN_POOL = 256;
    /** Resident characters past which the tenants are fewer. */
    private static final long RESIDENT_CHARS = 64_000_000;
    /** Characters in the request pool past which it is smaller. */
    private static final long POOL_CHARS = 64_000_000;

    /** Workers the tenants are spread over, all healthy and idle (so the fleet is balanced). */
    @Param({"8"})
    public int workers;

    @Param({"2000", "10000"})
    public int promptChars;

    @Param({"1000"})
    public int tenants;

    /** Which worker a shared prefix reports ({@code --shared-prefix-owner}): SGLang's first owner or the latest. */
    @Param({"first", "latest"})
    public String sharedPrefixOwner;

    /** {@code --discount-shared-prefix}: a second walk of the prompt for its shared branch point. */
    @Param({"false", "true"})
    public boolean discountSharedPrefix;

    /** {@code --hot-prefix-replication}: the shared-branch walk, the prefix hash and the load counters per request. */
    @Param({"false", "true"})
    public boolean hotPrefixReplication;

    /** Replica sync's request-path work: {@code off} (--sync none) or {@code on}. */
    @Param({"off", "on"})
    public String fleet;

    /**
     * The tree budget: {@code configured} ({@code max-tree-size}, enforced only by the periodic pass, not run here) or
     * {@code engine} ({@code max-tree-size auto}: each worker's budget is what it holds after the pre-fill, enforced on
     * insert, so the measured decisions include every eviction their inserts trigger once past the slack).
     */
    @Param({"configured", "engine"})
    public String treeBudget;

    private LoadBalancingPolicy policy;
    private List<Worker> fleetWorkers;
    private SelectionContext[] requests;
    private int next;

    @Setup
    public void setUp() {
        List<Worker> ws = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            ws.add(Worker.builder(workerUrl(i)).build());
        }
        fleetWorkers = List.copyOf(ws);
        int resident = residentTenants(tenants, workers, promptChars);
        OwnerRule rule = OwnerRule.fromWireName(sharedPrefixOwner);
        PolicyEnvironment env = PolicyEnvironment.seeded(1);
        FleetPrefixes prefixes = null;
        if (fleet.equals("on")) {
            long[] stamp = {0};
            prefixes = new FleetPrefixes(new PrefixHasher(new byte[] {1, 2, 3}), new FleetPrefixIndex(rule),
                    () -> ++stamp[0], d -> { });
            env = env.withFleet(new Fleet(prefixes, null));
        }
        policy = PolicyFactory.create(CacheAwareConfig.defaults().withSharedPrefixOwner(rule)
                .withDiscountSharedPrefix(discountSharedPrefix).withHotPrefixReplication(hotPrefixReplication), env);
        fleetWorkers.forEach(policy::onWorkerAdded);
        ApproximateRadixTree tree = ((TreeBacked) policy).tree(Worker.UNKNOWN_MODEL_ID).orElseThrow();
        String[] system = new String[resident];
        for (int t = 0; t < resident; t++) {
            system[t] = Prompts.systemPrompt(t, promptChars);
            for (int turn = 0; turn < 3; turn++) {
                String text = system[t] + Prompts.userTurn(t, turn);
                tree.insert(text, fleetWorkers.get(t % workers).url());
                if (prefixes != null) {
                    prefixes.routed(prefixes.digest(Worker.UNKNOWN_MODEL_ID, text),
                            fleetWorkers.get(t % workers).url());
                }
            }
        }
        if (treeBudget.equals("engine")) {
            for (Worker w : fleetWorkers) {
                ((TreeBacked) policy).setTenantCharBudget(w.url(), tree.tenantChars(w.url()));
            }
        }
        SplittableRandom r = new SplittableRandom(99);
        int pool = Math.max(MIN_POOL, Math.min(POOL, Integer.highestOneBit((int) (POOL_CHARS / promptChars))));
        requests = new SelectionContext[pool];
        for (int i = 0; i < pool; i++) {
            int t = r.nextInt(resident);
            requests[i] = SelectionContext.ofText(system[t] + Prompts.userTurn(t, 3 + i));
        }
    }

    /** Worker {@code i}'s URL. */
    static String workerUrl(int i) {
        return "http://10." + (i >> 8) + "." + (i & 255) + ".1:8000";
    }

    /** The tenants resident in the tree: {@code tenants}, fewer past {@link #RESIDENT_CHARS}, at least one a worker. */
    static int residentTenants(int tenants, int workers, int promptChars) {
        return (int) Math.max(workers, Math.min(tenants, RESIDENT_CHARS / promptChars));
    }

    @Benchmark
    public Decision decide() {
        SelectionContext ctx = requests[next++ & (requests.length - 1)];
        return policy.select(fleetWorkers, ctx);
    }
}
