package dev.caravan.bench.soak;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.caravan.bench.results.MeasuredRows;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./caravan bench soak}: runs a {@link SoakRun}, prints its figures, writes a row per fault into
 * {@code soak-faults.json} in the work folder, and with {@code --results FILE} merges the fleet summary's row into that
 * section file. Exits
 * 1 when a request was lost, a failure is not attributed to a fault, or the replicas did not agree again within the
 * limit after a fault.
 */
@Command(name = "caravan bench soak", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 118,
        description = "A fleet soak under a seeded fault schedule: 2 gateway replicas (child JVMs, replica sync), 8 "
                + "simulated engines with KV events, mixed load; reports requests lost and failures by cause.")
public final class SoakMain implements Callable<Integer> {

    @Option(names = "--minutes", description = "How long the load runs (at least one full cycle of faults).",
            defaultValue = "30")
    double minutes;
    @Option(names = "--seed", description = "Seeds arrivals, request mix and fault schedule.", defaultValue = "42")
    long seed;
    @Option(names = "--results", paramLabel = "FILE", description = "Merge the fleet summary into this section file "
            + "(docs/bench/results/soak.json).")
    Path results;
    @Option(names = "--work-dir", paramLabel = "DIR", description = "The tenants file, the replicas' logs and "
            + "soak-faults.json (the per-fault rows) "
            + "(default: a new temporary folder).")
    Path workDir;

    private String[] argv = new String[0];

    @Override
    public Integer call() throws Exception {
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("caravan-soak");
        MeasuredRows summary = rows(results);
        SoakOptions options = SoakOptions.forMinutes(minutes, seed, dir);
        SoakResult r = SoakRun.run(options);
        String run = String.format(Locale.ROOT, "%.0f min, seed %d", minutes, seed);
        System.out.println(SoakReport.text(r, run));
        if (results != null) {
            summary.add(SoakReport.summaryRow(r, run));
            summary.write(List.of("run"), List.of(run));
        }
        Path faults = dir.resolve("soak-faults.json");
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(faults.toFile(), SoakReport.faultRows(r, run));
        System.err.println("per-fault rows in " + faults);
        return SoakReport.passed(r, options.agreeLimit().toSeconds()) ? 0 : 1;
    }

    private MeasuredRows rows(Path file) {
        List<String> args = new ArrayList<>(List.of(argv));
        int at = args.indexOf(MeasuredRows.OPTION);
        if (at >= 0) {
            args.remove(at + 1);
            args.remove(at);
        }
        if (file != null) {
            args.add(MeasuredRows.OPTION);
            args.add(file.toString());
        }
        return MeasuredRows.start(SoakMain.class, args.toArray(String[]::new));
    }

    public static void main(String[] args) {
        SoakMain main = new SoakMain();
        main.argv = args.clone();
        System.exit(new CommandLine(main).execute(args));
    }
}
