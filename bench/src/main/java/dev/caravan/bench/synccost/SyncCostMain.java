package dev.caravan.bench.synccost;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.caravan.bench.drive.SyncMetricsReader;
import dev.caravan.bench.results.MeasuredRows;
import dev.caravan.bench.results.ResultsPage;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimFleet;

/**
 * The replica-sync cost curve: for each replica count, a fleet of gateway processes without sync and one with
 * {@code --sync hazelcast}, each on fresh simulated engines (in this JVM, so their CPU is not the gateways'), warmed
 * up, measured idle, then measured under the same request rate spread over its replicas. Prints a row per replica count
 * and, with {@code --results FILE}, writes the section anew with this run's rows ({@link SyncCostRows}).
 */
@Command(name = "sync-cost", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 118,
        description = "CPU per request and decision-visibility lag of N gateway processes with and without "
                + "--sync hazelcast, at one request rate over the replicas.")
public final class SyncCostMain implements Callable<Integer> {

    @Option(names = "--jar", required = true, description = "The app jar the gateways run (app/target/caravan.jar; "
            + "a copy, so a rebuild does not change it under a running JVM).")
    Path jar;
    @Option(names = "--replicas", split = ",", description = "Replica counts, with sync.", defaultValue = "1,3,5")
    List<Integer> replicas;
    @Option(names = "--no-sync", split = ",", description = "Replica counts measured without sync (1 is the "
            + "baseline of the sync cost).", defaultValue = "1,3,5")
    List<Integer> noSync;
    @Option(names = "--rate", description = "Requests per second, all replicas together.", defaultValue = "200")
    double rate;
    @Option(names = "--seconds", description = "Measured window per fleet.", defaultValue = "60")
    double seconds;
    @Option(names = "--warmup", description = "Seconds of load before the windows (the JIT compilers).",
            defaultValue = "60")
    double warmup;
    @Option(names = "--idle", description = "Seconds measured without requests, after the warm-up.",
            defaultValue = "15")
    double idle;
    @Option(names = "--engines", description = "Simulated engines.", defaultValue = "4")
    int engines;
    @Option(names = "--tenants", description = "Distinct prompt preambles.", defaultValue = "16")
    int tenants;
    @Option(names = "--preamble-chars", description = "Characters per preamble.", defaultValue = "2000")
    int preambleChars;
    @Option(names = "--java-options", description = "The gateways' JVM options, space-separated; {replica} is "
            + "replaced by the replica's label (e.g. a flight recording's file name).", defaultValue = "-Xmx384m")
    String javaOptions;
    @Option(names = "--jfr", paramLabel = "DIR", description = "Record each gateway with JFR (settings=profile) into "
            + "DIR/<fleet>-<i>.jfr.")
    Path jfr;
    @Option(names = "--work-dir", paramLabel = "DIR", description = "The gateways' logs (default: a new temporary "
            + "folder).")
    Path workDir;
    @Option(names = "--seed", description = "Seeds prompts and sync ports.", defaultValue = "42")
    long seed;
    @Option(names = MeasuredRows.OPTION, paramLabel = "FILE", description = "Write the section anew into this file "
            + "(docs/bench/results/sync-cost.json) and draw its plot.")
    Path results;

    private String[] argv = new String[0];

    public static void main(String[] args) {
        SyncCostMain main = new SyncCostMain();
        main.argv = args.clone();
        System.exit(new CommandLine(main).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (results != null && !Files.isRegularFile(results)) {
            SyncCostSection.empty().write(results);
        }
        MeasuredRows out = MeasuredRows.start(SyncCostMain.class, argv);
        Path logs = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("caravan-sync-cost");
        List<String> options = new ArrayList<>(Arrays.asList(javaOptions.trim().split("\\s+")));
        options.removeIf(String::isEmpty);
        if (jfr != null) {
            Files.createDirectories(jfr);
            options.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                    + jfr.toAbsolutePath().resolve("{replica}.jfr"));
        }
        long ticksPerSecond = ProcCpu.ticksPerSecond();
        SplittableRandom random = new SplittableRandom(seed);
        List<FleetRun> runs = new ArrayList<>();
        for (int n : replicas.stream().distinct().sorted().toList()) {
            if (noSync.contains(n)) {
                runs.add(measure(n, false, logs, options, ticksPerSecond, random));
            }
            runs.add(measure(n, true, logs, options, ticksPerSecond, random));
        }
        for (int n : noSync) {
            if (!replicas.contains(n)) {
                runs.add(measure(n, false, logs, options, ticksPerSecond, random));
            }
        }
        List<Map<String, Object>> rows = SyncCostRows.rows(runs);
        rows.forEach(r -> System.out.println(r));
        System.err.println("gateway logs in " + logs);
        if (out.writes()) {
            SyncCostSection.empty().write(results);
            rows.forEach(out::add);
            String label = String.format(Locale.ROOT, "replicas %s at %.0f req/s, %.0f s measured per fleet",
                    replicas, rate, seconds);
            ResultsPage.writePlots(out.write(List.of("replicas"), List.of(label)), results.getParent());
        }
        return 0;
    }

    private FleetRun measure(int n, boolean sync, Path logs, List<String> options, long ticksPerSecond,
                             SplittableRandom random) throws InterruptedException {
        String label = n + (sync ? "-sync" : "-nosync");
        double loadStart = ProcCpu.loadAverage();
        System.err.printf(Locale.ROOT, "%s: starting (load average %.2f)%n", label, loadStart);
        try (SimFleet sims = SimFleet.start(engines, SimConfig.builder().timeScale(1000).build());
             GatewayProcesses fleet = GatewayProcesses.start(jar, options, n, sync, sims.urls(), logs, label,
                     random.split())) {
            RateDriver driver = new RateDriver(fleet.urls(), rate, tenants, preambleChars, seed);
            driver.run(warmup);
            Thread.sleep(2_000);
            long idle0 = ProcCpu.ticks(fleet.pids());
            long idleStart = System.nanoTime();
            Thread.sleep(Math.round(idle * 1000));
            long idleTicks = ProcCpu.ticks(fleet.pids()) - idle0;
            double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
            List<String> prefixes = List.of(SyncSamples.LAG, SyncSamples.RECEIVED);
            List<Map<String, Double>> before = SyncMetricsReader.read(fleet.urls(), prefixes);
            Map<String, Long> groups0 = ProcCpu.ticksByGroup(fleet.pids());
            long cpu0 = ProcCpu.ticks(fleet.pids());
            long t0 = System.nanoTime();
            RateDriver.Counts counts = driver.run(seconds);
            long cpuTicks = ProcCpu.ticks(fleet.pids()) - cpu0;
            Map<String, Long> groups = new TreeMap<>(ProcCpu.ticksByGroup(fleet.pids()));
            groups0.forEach((g, t) -> groups.merge(g, -t, Long::sum));
            double elapsed = (System.nanoTime() - t0) / 1e9;
            List<Map<String, Double>> after = SyncMetricsReader.read(fleet.urls(), prefixes);
            FleetRun run = new FleetRun(n, sync, counts.ok(), counts.failed(), elapsed, cpuTicks, groups, idleSeconds,
                    idleTicks, ticksPerSecond, sync ? SyncSamples.of(before, after) : SyncSamples.NONE, loadStart,
                    ProcCpu.loadAverage());
            System.err.printf(Locale.ROOT, "%s: %d ok, %d failed, %.1f CPU µs/request, idle %.1f CPU ms/s, ticks %d by thread "
                    + "group %s, %s%n", label, run.requests(), run.failed(), run.cpuUsPerRequest(),
                    run.idleCpuMsPerSecond(), cpuTicks, groups, run.samples());
            return run;
        }
    }
}
