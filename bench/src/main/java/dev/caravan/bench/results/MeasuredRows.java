package dev.caravan.bench.results;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Merges the rows a measuring program computes itself (a {@code main} that is not JMH and not {@code ./caravan
 * bench}, e.g. {@code TreeMemory}) into its results-page section, the way {@link FleetResults} and {@link JmhResults}
 * merge theirs: {@link ResultsSection#withRows} replaces the rows that agree on the row keys and appends the others,
 * and this run's {@link ResultsSection.Measured} entry (commit, day, machine, load average over the run) joins the
 * section's list. The section file must exist: its command, columns and plots are the page's and stay as they are.
 *
 * <pre>{@code
 * MeasuredRows run = MeasuredRows.start(TreeMemory.class, args);   // reads --results FILE, notes the load average
 * ... measure, run.add(row) ...
 * run.write(List.of("structure", "shape"), List.of("radix tree"));
 * }</pre>
 *
 * Not thread-safe: one instance per run, on its main thread.
 */
public final class MeasuredRows {

    /** The option naming the section file to merge into. */
    public static final String OPTION = "--results";

    private final Path file;
    private final List<String> args;
    private final String command;
    private final String loadAtStart;
    private final List<Map<String, Object>> rows = new ArrayList<>();

    private MeasuredRows(Path file, List<String> args, String command, String loadAtStart) {
        this.file = file;
        this.args = args;
        this.command = command;
        this.loadAtStart = loadAtStart;
    }

    /**
     * A run of {@code main} with its command-line arguments: {@code --results FILE} names the section file (it must
     * exist), the other arguments are {@link #args()}.
     *
     * @throws IllegalArgumentException when {@code --results} has no file or the file is not there
     */
    public static MeasuredRows start(Class<?> main, String[] argv) {
        List<String> rest = new ArrayList<>();
        Path file = null;
        for (int i = 0; i < argv.length; i++) {
            if (OPTION.equals(argv[i])) {
                if (i + 1 >= argv.length) {
                    throw new IllegalArgumentException(OPTION + " needs a section file, e.g. " + OPTION
                            + " docs/bench/results/memory.json");
                }
                file = Path.of(argv[++i]);
                if (!Files.isRegularFile(file)) {
                    throw new IllegalArgumentException(OPTION + " " + file + ": no such section file (copy the one in"
                            + " docs/bench/results to write elsewhere)");
                }
            } else {
                rest.add(argv[i]);
            }
        }
        return new MeasuredRows(file, List.copyOf(rest), commandLine(main, argv), loadAverage());
    }

    /** The arguments other than {@code --results FILE}, in order. */
    public List<String> args() {
        return args;
    }

    /** Whether {@code --results} named a file, so {@link #write} merges into it. */
    public boolean writes() {
        return file != null;
    }

    /** Adds a row: keys and values as the section's columns name them. */
    public void add(Map<String, Object> row) {
        rows.add(row);
    }

    /**
     * Merges the rows added into the section file, when {@code --results} named one, and says so on stderr.
     *
     * @param rowKeys the keys a row replaces an old row by
     * @param labels  the labels of what this run measured, as the page's "Measured" list names them
     * @return the merged section, or null without {@code --results}
     */
    public ResultsSection write(List<String> rowKeys, List<String> labels) {
        if (file == null) {
            return null;
        }
        ResultsSection.Measured m = new ResultsSection.Measured(labels, command, FleetResults.gitCommit(),
                LocalDate.now(ZoneOffset.UTC).toString(), machine(), FleetResults.widen(loadAtStart, loadAverage()));
        ResultsSection merged = merge(ResultsSection.read(file), rowKeys, rows, m);
        merged.write(file);
        System.err.println("merged " + rows.size() + " rows into " + file);
        return merged;
    }

    /**
     * As {@link #write}, but merging the rows' cells into the rows of the same key ({@link ResultsSection#withCells}),
     * so the columns another command fills stay, and laying the columns out afresh from the merged rows.
     */
    public ResultsSection writeCells(List<String> rowKeys, List<String> labels,
                                     Function<List<Map<String, Object>>, List<ResultsSection.Column>> columns) {
        if (file == null) {
            return null;
        }
        ResultsSection.Measured m = new ResultsSection.Measured(labels, command, FleetResults.gitCommit(),
                LocalDate.now(ZoneOffset.UTC).toString(), machine(), FleetResults.widen(loadAtStart, loadAverage()));
        ResultsSection old = ResultsSection.read(file);
        ResultsSection cells = old.withCells(rowKeys, rows);
        ResultsSection merged = new ResultsSection(cells.command(), FleetResults.mergeMeasured(cells.measured(), m),
                columns.apply(cells.rows()), cells.rows(), cells.plots());
        merged.write(file);
        System.err.println("merged " + rows.size() + " rows' cells into " + file);
        return merged;
    }

    /** The merge itself, without files. */
    static ResultsSection merge(ResultsSection old, List<String> rowKeys, List<Map<String, Object>> rows,
                                ResultsSection.Measured measured) {
        ResultsSection withRows = old.withRows(rowKeys, rows);
        return new ResultsSection(withRows.command(), FleetResults.mergeMeasured(withRows.measured(), measured),
                withRows.columns(), withRows.rows(), withRows.plots());
    }

    /** {@code java}, this JVM's options, its class path, the main class and its arguments, as the run was started. */
    static String commandLine(Class<?> main, String[] argv) {
        StringBuilder sb = new StringBuilder("java");
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            sb.append(' ').append(option);
        }
        sb.append(" -cp ").append(System.getProperty("java.class.path")).append(' ').append(main.getName());
        for (String a : argv) {
            sb.append(' ').append(a);
        }
        return sb.toString();
    }

    private static String machine() {
        return Runtime.getRuntime().availableProcessors() + " cores (shared), " + System.getProperty("java.vm.name")
                + " " + System.getProperty("java.version");
    }

    /** The 1-minute load average, or null where {@code /proc/loadavg} is not readable. */
    private static String loadAverage() {
        Path proc = Path.of("/proc/loadavg");
        try {
            return Files.isReadable(proc) ? Files.readString(proc).split(" ")[0] : null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + proc, e);
        }
    }
}
