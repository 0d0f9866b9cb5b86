package dev.caravan.bench.soak;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one soak: starts the {@link SoakFleet}, sends the {@link SoakLoad}, and after the warm-up runs the fault
 * schedule — cycles through every {@link FaultKind} in a seeded order, each on a seeded target engine, separated by
 * seeded pauses — until the duration has passed and at least one full cycle has run (at most
 * {@link SoakOptions#maxCycles()}). After each recovery it polls the
 * replicas until they agree again ({@link SoakFleet#agree()}). A sampler takes each replica's heap after a full GC and
 * its thread count every {@link SoakOptions#sampleEvery()}. When the load stops, requests in flight get until the drain
 * deadline (the gateways' request timeout plus the grace period); what is still open then is lost.
 *
 * <pre>{@code
 * SoakResult r = SoakRun.run(SoakOptions.forMinutes(3, 42, workDir));
 * }</pre>
 */
public final class SoakRun {

    private static final Logger LOG = LoggerFactory.getLogger(SoakRun.class);
    /** Requests in flight get the gateways' request timeout (60 s) plus this to end once the load stops. */
    private static final long DRAIN_SECONDS = 90;
    /** The replica the schedule kills: replica 0 runs the whole soak, so its heap and threads are a trend. */
    static final int KILLED_REPLICA = 1;
    /** How long a partition may take to split the cluster (Hazelcast's heartbeat timeout is 3 s here). */
    private static final long SPLIT_LIMIT_SECONDS = 30;

    private final SoakOptions options;
    private final Random random;
    private final List<Injection> injections = new CopyOnWriteArrayList<>();
    private final List<SoakResult.Sample> samples = new CopyOnWriteArrayList<>();
    private SoakFleet fleet;
    private long loadStart;

    private SoakRun(SoakOptions options) {
        this.options = options;
        this.random = new Random(options.seed());
    }

    public static SoakResult run(SoakOptions options) throws InterruptedException {
        return new SoakRun(options).execute();
    }

    private SoakResult execute() throws InterruptedException {
        Ledger ledger = new Ledger(System::nanoTime);
        try (SoakFleet f = new SoakFleet(options.engines(), options.timeScale(), options.workDir())) {
            fleet = f;
            awaitAgreement(120);
            loadStart = System.nanoTime();
            double wall;
            double reloadsFailed;
            try (SoakLoad load = new SoakLoad(fleet.replicaUrls(), fleet.model(), options.ratePerSecond(),
                    options.seed(), ledger, java.time.Duration.ofSeconds(DRAIN_SECONDS)).start()) {
                TimeUnit.MILLISECONDS.sleep(options.warmup().toMillis());
                sample("warm");
                Thread sampler = startSampler();
                schedule();
                long end = loadStart + options.duration().toNanos();
                while (System.nanoTime() < end) {
                    TimeUnit.MILLISECONDS.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                }
                sampler.interrupt();
                sampler.join();
                sample("end");
                load.stopSending();
                wall = seconds(System.nanoTime());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
                while (ledger.outstanding() > 0 && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                reloadsFailed = fleet.failedTenantReloads(0);
            }
            return result(ledger, wall, reloadsFailed);
        }
    }

    private void schedule() throws InterruptedException {
        long faultsEnd = loadStart + options.duration().minus(options.cooldown()).toNanos();
        boolean fullCycle = false;
        for (int c = 0; c < options.maxCycles() && (!fullCycle || System.nanoTime() < faultsEnd); c++) {
            List<FaultKind> cycle = new ArrayList<>(List.of(FaultKind.values()));
            Collections.shuffle(cycle, random);
            for (FaultKind kind : cycle) {
                if (fullCycle && System.nanoTime() >= faultsEnd) {
                    return;
                }
                long gap = options.gapMin().toMillis()
                        + (long) (random.nextDouble() * (options.gapMax().toMillis() - options.gapMin().toMillis()));
                TimeUnit.MILLISECONDS.sleep(gap);
                inject(kind, random.nextInt(fleet.engineCount()));
            }
            fullCycle = true;
        }
    }

    private void inject(FaultKind kind, int engine) throws InterruptedException {
        long hold = options.hold().toMillis();
        int target = engine;
        long start = System.nanoTime();
        LOG.info("soak: injecting '{}' at {} s", kind.label(), String.format("%.1f", seconds(start)));
        switch (kind) {
            case ENGINE_KILLED -> {
                fleet.killEngine(engine);
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.startEngine(engine);
            }
            case ENGINE_HUNG -> {
                fleet.hangEngine(engine, true);
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.hangEngine(engine, false);
            }
            case KV_PUBLISHER_RESTARTED -> {
                fleet.killEngine(engine);
                fleet.startEngine(engine);
            }
            case KV_EVENTS_DROPPED -> {
                fleet.dropKvEvents(engine, true);
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.dropKvEvents(engine, false);
            }
            case REPLICA_KILLED -> {
                target = KILLED_REPLICA;
                fleet.killReplica(KILLED_REPLICA);
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.startReplica(KILLED_REPLICA);
            }
            case PARTITION -> {
                target = -1;
                fleet.partition();
                awaitSplit(); // the hold starts once each side has noticed the other gone
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.heal();
            }
            case BAD_TENANTS_FILE -> {
                target = -1;
                fleet.writeBadTenantsFile();
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.restoreTenantsFile();
            }
            case WORKER_DRAINED -> {
                target = busiestEngine();
                fleet.drainWorker(target);
                TimeUnit.MILLISECONDS.sleep(hold);
                fleet.addWorker(target);
            }
            default -> throw new IllegalStateException("no injection for " + kind);
        }
        long end = System.nanoTime();
        double agree = awaitAgreement(options.agreeLimit().toSeconds());
        injections.add(new Injection(kind, target, start, end, agree));
        LOG.info("soak: '{}' recovered after {} ms; replicas agree after {} s", kind.label(),
                (end - start) / 1_000_000, agree);
    }

    /** Until each replica sees only itself, at most {@link #SPLIT_LIMIT_SECONDS}. */
    private void awaitSplit() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SPLIT_LIMIT_SECONDS);
        while (System.nanoTime() < deadline && (fleet.members(0) != 1 || fleet.members(1) != 1)) {
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    /** The engine with the most requests in flight (the drain then has streams to let finish). */
    private int busiestEngine() {
        int best = 0;
        for (int i = 1; i < fleet.engineCount(); i++) {
            if (fleet.inFlight(i) > fleet.inFlight(best)) {
                best = i;
            }
        }
        return best;
    }

    /** Seconds until the replicas agree, polling every 250 ms; -1 when they do not within {@code limitSeconds}. */
    private double awaitAgreement(long limitSeconds) throws InterruptedException {
        long from = System.nanoTime();
        long deadline = from + TimeUnit.SECONDS.toNanos(limitSeconds);
        while (System.nanoTime() < deadline) {
            if (fleet.agree()) {
                return (System.nanoTime() - from) / 1e9;
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        return -1;
    }

    private Thread startSampler() {
        Thread t = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    TimeUnit.MILLISECONDS.sleep(options.sampleEvery().toMillis());
                    sample("run");
                }
            } catch (InterruptedException e) {
                // the run ended
            }
        }, "soak-sampler");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void sample(String phase) {
        for (int r = 0; r < 2; r++) {
            try {
                double[] v = fleet.heapAfterGcAndThreads(r);
                if (v != null) {
                    samples.add(new SoakResult.Sample(seconds(System.nanoTime()), r, v[0] / (1024 * 1024), v[1],
                            phase));
                }
            } catch (RuntimeException e) {
                LOG.info("soak: no sample of replica {} ({})", r, e.toString()); // it may be restarting
            }
        }
    }

    private double seconds(long nanos) {
        return (nanos - loadStart) / 1e9;
    }

    private SoakResult result(Ledger ledger, double wall, double reloadsFailed) {
        Ledger.Tally t = ledger.tally(injections, options.grace().toNanos());
        Map<String, Long> byCause = new LinkedHashMap<>();
        t.failedByCause.forEach((c, n) -> byCause.put(c.name().toLowerCase(java.util.Locale.ROOT), n));
        Map<String, Long> attributed = new LinkedHashMap<>();
        t.attributedByFault.forEach((k, n) -> attributed.put(k.label(), n));
        List<SoakResult.InjectionFigure> figures = injections.stream().map(i -> new SoakResult.InjectionFigure(
                i.kind().label(), i.target(), seconds(i.startNanos()), (i.endNanos() - i.startNanos()) / 1e9,
                i.agreeSeconds())).toList();
        return new SoakResult(wall, t.sent, t.answered, t.limited, t.failed, byCause, attributed,
                List.copyOf(t.unattributed), t.lost, Ledger.Tally.p99(t.latencyInsideMs),
                Ledger.Tally.p99(t.latencyOutsideMs), figures, List.copyOf(samples), reloadsFailed);
    }
}
