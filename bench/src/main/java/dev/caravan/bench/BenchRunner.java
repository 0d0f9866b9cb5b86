package dev.caravan.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.caravan.bench.drive.ExternalTarget;
import dev.caravan.bench.drive.Front;
import dev.caravan.bench.drive.GatewayTarget;
import dev.caravan.bench.drive.InflightSampler;
import dev.caravan.bench.drive.LoadDriver;
import dev.caravan.bench.drive.NginxProcess;
import dev.caravan.bench.drive.NginxTarget;
import dev.caravan.bench.drive.Progress;
import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.drive.EngineTokens;
import dev.caravan.bench.drive.ReuseTracker;
import dev.caravan.bench.drive.SyncMetricsReader;
import dev.caravan.bench.report.DecisionQualityRows;
import dev.caravan.bench.drive.Target;
import dev.caravan.bench.report.BenchReport;
import dev.caravan.bench.report.PolicyResult;
import dev.caravan.bench.report.ResultCalculator;
import dev.caravan.bench.whatif.WhatIfRunner;
import dev.caravan.bench.workload.NoisyNeighbourWorkload;
import dev.caravan.bench.workload.TruncatedWorkload;
import dev.caravan.bench.workload.Workload;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.sim.SimConfig;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one workload against each policy in turn and collects the {@link BenchReport}. In the HTTP mode every policy
 * gets a fresh set of simulated engines (cold caches) and a fresh load balancer, and sees the identical request
 * sequence (same seed); in the what-if mode the same sequence is replayed through the policy code against engine
 * models in simulated time ({@link WhatIfRunner}).
 *
 * <p>With {@code gateways} N &gt; 1, each Caravan policy runs twice in a row on fresh fleets: behind one gateway, then
 * behind N replicas (label suffix {@code ×N}) with a round-robin front, so the report can set every N-gateway figure
 * next to the one-gateway figure measured in the same invocation, under the same machine load.
 */
public final class BenchRunner {

    private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);
    private static final long SAMPLE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * @param engine        configuration of every simulated engine (time scale included)
     * @param gateway       an external load balancer, or null to start one per policy
     * @param warmup        requests excluded from the statistics
     * @param whatIf        replay against engine models instead of HTTP
     * @param jvmWarmupSeconds wall seconds of the workload's beginning sent once, unmeasured, before the first policy
     * @param gateways      Caravan replicas per policy run (1: one gateway; N &gt; 1: one, then N)
     * @param front         what alternates requests over N replicas
     */
    public record Config(Workload workload, List<PolicySpec> policies, int engines, SimConfig engine, List<URI> gateway,
                         String model, int warmup, long requestTimeoutMs, long maxWallSeconds, boolean whatIf,
                         long jvmWarmupSeconds, String command, int gateways, Front front, String sync) {

        public Config {
            gateway = gateway == null ? List.of() : List.copyOf(gateway);
            sync = sync == null ? CoreFlags.SYNC_NONE : sync;
            if (!sync.equals(CoreFlags.SYNC_NONE) && !sync.equals(CoreFlags.SYNC_HAZELCAST)) {
                throw new IllegalArgumentException("--sync must be none or hazelcast, was " + sync);
            }
            if (gateways < 1) {
                throw new IllegalArgumentException("--gateways must be >= 1, was " + gateways);
            }
            if (gateways > 1 && whatIf) {
                throw new IllegalArgumentException("--gateways needs --mode http (the what-if mode replays one "
                        + "policy instance)");
            }
        }

        /** The fleet's KV capacity pooled, in blocks: the capacity of the pooled-LRU and Belady ceilings. */
        public int pooledCapacityBlocks() {
            return engines * engine.kvCapacityBlocks();
        }
    }

    private final Config config;
    private final PrintStream err;
    private final boolean terminal;

    public BenchRunner(Config config, PrintStream err, boolean terminal) {
        this.config = config;
        this.err = err;
        this.terminal = terminal;
    }

    public BenchReport run() throws InterruptedException {
        List<PolicyResult> results = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        machine.put("load_average_start", load());
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        Optional<Path> nginx = NginxProcess.find();
        Vertx vertx = config.whatIf() ? null : Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        NoisyNeighbourRuns noisy = config.workload() instanceof NoisyNeighbourWorkload n && !config.whatIf()
                ? new NoisyNeighbourRuns(n, config.engine().timeScale()) : null;
        try {
            if (!config.whatIf() && config.jvmWarmupSeconds() > 0) {
                warmUpJvm(vertx, nginx, notes);
            }
            if (noisy != null) {
                Optional<PolicySpec> first = config.policies().stream()
                        .filter(p -> p.kind() != PolicySpec.Kind.NGINX || nginx.isPresent()).findFirst();
                if (first.isPresent()) {
                    PolicySpec alone = new PolicySpec(first.get().label() + " (quiet tenants alone)",
                            first.get().kind(), first.get().policy(), first.get().options());
                    NoisyNeighbourWorkload quiet = noisy.workload().alone();
                    results.add(logged(runHttp(vertx, alone, 1, nginx, quiet, quiet.defaultWarmup(),
                            noisy.alone(alone.label()))));
                }
            }
            for (PolicySpec spec : config.policies()) {
                if (spec.kind() == PolicySpec.Kind.NGINX && nginx.isEmpty() && !config.whatIf()) {
                    notes.add(spec.label() + " skipped: no nginx executable on the PATH (apt-get install -y nginx)");
                    err.println("caravan bench: " + notes.get(notes.size() - 1));
                    continue;
                }
                if (config.whatIf() && spec.kind() != PolicySpec.Kind.CARAVAN) {
                    notes.add(spec.label() + " skipped: the what-if mode replays Caravan's policy code only");
                    continue;
                }
                if (config.whatIf()) {
                    results.add(logged(new WhatIfRunner(config, err, terminal).run(spec)));
                    continue;
                }
                results.add(logged(runHttp(vertx, spec, 1, nginx, config.workload(), config.warmup(),
                        noisy == null ? records -> { } : noisy.shared(spec))));
                if (config.gateways() > 1 && spec.kind() == PolicySpec.Kind.CARAVAN) {
                    PolicySpec replicated = new PolicySpec(spec.label() + " ×" + config.gateways(), spec.kind(),
                            spec.policy(), replicaOptions(spec));
                    results.add(logged(runHttp(vertx, replicated, config.gateways(), nginx, config.workload(),
                            config.warmup(), noisy == null ? records -> { } : noisy.shared(replicated))));
                } else if (config.gateways() > 1) {
                    notes.add(spec.label() + " ran once: --gateways replicates Caravan entries only");
                }
            }
            if (noisy != null) {
                notes.addAll(noisy.lines());
            }
        } finally {
            if (vertx != null) {
                vertx.close().toCompletionStage().toCompletableFuture().join();
            }
        }
        machine.put("load_average_end", load());
        SimConfig e = config.engine();
        BenchReport.EngineSetup setup = new BenchReport.EngineSetup(config.engines(), e.kvCapacityTokens(),
                e.blockSize(), e.prefillTokensPerSec(), e.prefillOverheadMs(), e.decodeMsPerToken(), e.maxModelLen(),
                config.whatIf() ? 1.0 : e.timeScale(), EngineModel.labelOf(e.tokenizer()));
        return new BenchReport(config.command(), config.whatIf() ? "whatif" : "http", config.workload().name(),
                config.workload().description(), config.workload().parameters(), setup,
                config.workload().analytic(config.engines(), e.prefillTokensPerSec()), results, notes, machine,
                noisy == null ? List.of() : noisy.summaries());
    }

    /**
     * Sends the first {@code jvmWarmupSeconds} (wall) of the workload through the first runnable entry on a throwaway
     * fleet, so the first measured policy does not pay for class loading and JIT compilation.
     */
    private void warmUpJvm(Vertx vertx, Optional<Path> nginx, List<String> notes) throws InterruptedException {
        Optional<PolicySpec> first = config.policies().stream()
                .filter(p -> p.kind() != PolicySpec.Kind.NGINX || nginx.isPresent()).findFirst();
        if (first.isEmpty()) {
            return;
        }
        long until = (long) (config.jvmWarmupSeconds() * 1e9 * config.engine().timeScale());
        PolicySpec spec = first.get();
        if (config.gateways() > 1 && spec.kind() == PolicySpec.Kind.CARAVAN) {
            spec = new PolicySpec(spec.label(), spec.kind(), spec.policy(), replicaOptions(spec));
        }
        PolicyResult r = runHttp(vertx, spec, config.gateways(), nginx,
                new TruncatedWorkload(config.workload(), until), 0, records -> { });
        notes.add(String.format(Locale.ROOT, "JVM warm-up before the first policy (not measured): the first %d wall "
                + "s of the workload (%,d requests) through %s on a throwaway fleet.", config.jvmWarmupSeconds(),
                r.sent(), first.get().label()));
    }

    /**
     * The options of a policy's N-replica run: its own, plus {@code sync=hazelcast} with {@code --sync hazelcast}
     * (unless the entry sets {@code sync} itself). The one-gateway baseline keeps the entry's options.
     */
    private Map<String, String> replicaOptions(PolicySpec spec) {
        Map<String, String> options = new LinkedHashMap<>(spec.options());
        if (config.sync().equals(CoreFlags.SYNC_HAZELCAST)) {
            options.putIfAbsent("sync", CoreFlags.SYNC_HAZELCAST);
        }
        return options;
    }

    /** The engines' tokenizer and chat template, so the reuse figures and ceilings count in the engines' tokens. */
    private EngineTokens engineTokens() {
        try {
            return EngineTokens.of(config.engine());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load the engines' tokenizer " + config.engine().tokenizer(), e);
        }
    }

    private PolicyResult logged(PolicyResult r) {
        LOG.info("{}: {} of {} measured requests completed", r.label(), r.completed(), r.measured());
        return r;
    }

    private PolicyResult runHttp(Vertx vertx, PolicySpec spec, int gateways, Optional<Path> nginx, Workload workload,
                                 int warmup, Consumer<List<RequestRecord>> recordsSink)
            throws InterruptedException {
        String before = load();
        long wallStart = System.nanoTime();
        try (Target target = target(spec, gateways, nginx); EngineTokens tokens = engineTokens()) {
            ReuseTracker reuse = new ReuseTracker(config.engine().blockSize(), tokens);
            LoadDriver.Run run;
            InflightSampler sampler = new InflightSampler(target.inflightProbes(), SAMPLE_PERIOD_NANOS);
            String label = warmup == 0 && workload instanceof TruncatedWorkload ? "JVM warm-up" : spec.label();
            try (Progress progress = new Progress(label, workload.expectedRequests(), err, terminal)) {
                sampler.start();
                LoadDriver driver = new LoadDriver(vertx, new LoadDriver.Settings(target.baseUrls(), config.model(),
                        config.engine().timeScale(), warmup, config.requestTimeoutMs()), workload, reuse, progress);
                run = driver.run(System.nanoTime() + TimeUnit.SECONDS.toNanos(config.maxWallSeconds()));
            } finally {
                sampler.close();
            }
            Map<String, String> settings = new LinkedHashMap<>(target.settings());
            settings.put("load_average", before + " → " + load());
            reuse.applyCeilings(run.records(), config.pooledCapacityBlocks());
            recordsSink.accept(run.records());
            double[] inflight = run.firstMeasuredSentNanos() < 0 ? null
                    : sampler.window(run.firstMeasuredSentNanos(), run.lastSentNanos());
            List<Map<String, Double>> sync = SyncMetricsReader.read(target.gatewayUrls());
            Map<String, Double> quality = DecisionQualityRows.sum(SyncMetricsReader.read(target.gatewayUrls(),
                    DecisionQualityRows.PREFIXES));
            int replicas = Math.max(1, Math.max(target.baseUrls().size(), target.gatewayUrls().size()));
            // several URLs to send to: the driver is the front; one URL before several replicas: nginx is
            String front = replicas < 2 ? null : target.baseUrls().size() > 1 ? Front.CLIENT.label()
                    : Front.Kind.NGINX.name().toLowerCase(Locale.ROOT);
            return ResultCalculator.compute(spec, spec.kind().name().toLowerCase(Locale.ROOT), settings,
                    run.records(), new ResultCalculator.RunWindow(config.engine().timeScale(),
                            config.engine().prefillTokensPerSec(), target.engines(), inflight,
                            (System.nanoTime() - wallStart) / 1e9, replicas, front, sync, quality));
        }
    }

    private Target target(PolicySpec spec, int gateways, Optional<Path> nginx) {
        return switch (spec.kind()) {
            case CARAVAN -> new GatewayTarget(spec, config.engines(), config.engine(), gateways,
                    gateways > 1 ? config.front() : Front.CLIENT);
            case NGINX -> new NginxTarget(nginx.orElseThrow(), spec.policy(), config.engines(), config.engine());
            case EXTERNAL -> {
                if (config.gateway().isEmpty()) {
                    throw new IllegalArgumentException("policy entry 'external' needs --gateway URL");
                }
                yield new ExternalTarget(config.gateway());
            }
        };
    }

    private static String load() {
        double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", l);
    }
}
