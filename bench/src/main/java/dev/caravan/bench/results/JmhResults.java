package dev.caravan.bench.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Merges a JMH result file ({@code -rf json -rff FILE}) into the decision-cost section of the results page. One row
 * per benchmark and parameter set, keyed by {@code benchmark} (the class's simple name) and {@code params} (JMH's
 * parameters, {@code k=v} in JMH's order): {@code operation} names what the benchmark measures, {@code setting} is
 * kept from the row it replaces (the page's wording) or else the parameters, {@code median_us} is the sample-time
 * median in µs, and {@code also} the p99 (sample time) or the mean with its error (average and single-shot time).
 *
 * <p>{@code --pivot} lays a grid over engine ranks out as a curve instead ({@link #pivot}): a row per prompt length
 * and page size, a sample-time median and p99 column per {@code ranks} value, and a bar chart of the medians.
 * {@code --curve} does the same for cache_aware's grid over workers, prompt length and tree budget
 * ({@link #cacheAwareCurve}). {@code --ingest} turns
 * {@code KvIngestBenchmark}'s results into the ingest table ({@link #ingest}): a row per rank count.
 *
 * <pre>{@code
 * java -cp bench/target/caravan-bench.jar dev.caravan.bench.results.JmhResults jmh.json decision-cost.json
 * java -cp bench/target/caravan-bench.jar dev.caravan.bench.results.JmhResults --pivot jmh.json decision-cost-curve.json
 * java -cp bench/target/caravan-bench.jar dev.caravan.bench.results.JmhResults --curve jmh.json cache-aware-curve.json
 * java -cp bench/target/caravan-bench.jar dev.caravan.bench.results.JmhResults --ingest jmh.json kv-ingest.json
 * }</pre>
 */
public final class JmhResults {

    private static final Map<String, String> OPERATIONS = Map.of(
            "CacheAwareDecisionBenchmark", "cache_aware",
            "KvAwareDecisionBenchmark", "kv_aware",
            "ConsistentHashBenchmark", "consistent_hashing",
            "TreeEvictionBenchmark", "tree eviction",
            "KvIngestBenchmark", "KV-event ingest");
    private static final String PIVOT_KEY = "median_us_";
    private static final String PIVOT_P99_KEY = "p99_us_";
    private static final String ENGINE_KEY = "engine_us_";
    /** The cache_aware curve's tree memory cells, bytes per stored character by worker count. */
    public static final String BYTES_KEY = "bytes_per_char_";
    /** Block events in one batch of {@code KvIngestBenchmark} (a store and a removal of 16 blocks). */
    static final int INGEST_EVENTS_PER_BATCH = 32;

    private JmhResults() {
    }

    /** The section with the JMH results' rows merged in; {@code old} may be null. */
    public static ResultsSection merge(ResultsSection old, JsonNode jmh, ResultsSection.Measured measured) {
        ResultsSection base = old != null ? old : new ResultsSection(measured.command(), List.of(), columns(),
                List.of(), List.of());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (JsonNode r : jmh) {
            rows.add(row(base, r));
        }
        ResultsSection merged = base.withRows(List.of("benchmark", "params"), rows);
        return new ResultsSection(merged.command(), FleetResults.mergeMeasured(merged.measured(), measured),
                merged.columns().isEmpty() ? columns() : merged.columns(), merged.rows(), merged.plots());
    }

    static Map<String, Object> row(ResultsSection section, JsonNode r) {
        String name = r.path("benchmark").asText();
        String[] parts = name.split("\\.");
        String benchmark = parts.length > 1 ? parts[parts.length - 2] : name;
        StringJoiner params = new StringJoiner(", ");
        r.path("params").fields().forEachRemaining(e -> params.add(e.getKey() + "=" + e.getValue().asText()));
        String setting = section.rows().stream()
                .filter(o -> benchmark.equals(o.get("benchmark")) && params.toString().equals(o.get("params")))
                .map(o -> (String) o.get("setting")).findFirst().orElse(params.toString());
        JsonNode pm = r.path("primaryMetric");
        String unit = pm.path("scoreUnit").asText();
        double toMicros = toMicros(unit);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("operation", OPERATIONS.getOrDefault(benchmark, benchmark)
                + (params.toString().contains("fleet=on") ? " with replica sync" : ""));
        row.put("setting", setting);
        if ("sample".equals(r.path("mode").asText())) {
            row.put("median_us", pm.path("scorePercentiles").path("50.0").asDouble() * toMicros);
            row.put("also", String.format(Locale.ROOT, "p99 %,.1f µs", pm.path("scorePercentiles").path("99.0")
                    .asDouble() * toMicros));
        } else {
            String shown = unit.replace("/op", "").replace("us", "µs");
            double error = pm.path("scoreError").asDouble(Double.NaN);
            row.put("also", "mean " + figure(pm.path("score").asDouble())
                    + (Double.isNaN(error) ? "" : " ± " + figure(error)) + " " + shown);
        }
        row.put("benchmark", benchmark);
        row.put("params", params.toString());
        return row;
    }

    /**
     * The section with a grid of {@code ranks x promptTokens x blockSize} pivoted in; {@code old} may be null. A row
     * per prompt length ({@code prompt}, e.g. {@code 2,080 tokens}) and page size ({@code page}) replaces the row of
     * the same two, keeping its place; its cells are the sample-time median and p99 in µs, keyed
     * {@code median_us_<ranks>} and {@code p99_us_<ranks>}, and the columns are the prompt, the page and one per rank count the rows hold, fewest ranks first.
     */
    public static ResultsSection pivot(ResultsSection old, JsonNode jmh, ResultsSection.Measured measured) {
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        for (JsonNode r : jmh) {
            JsonNode params = r.path("params");
            int prompt = params.path("promptTokens").asInt();
            int page = params.path("blockSize").asInt();
            Map<String, Object> row = rows.computeIfAbsent(prompt + "/" + page, k -> {
                Map<String, Object> fresh = new LinkedHashMap<>();
                fresh.put("prompt", String.format(Locale.ROOT, "%,d tokens", prompt));
                fresh.put("page", page);
                fresh.put("curve", String.format(Locale.ROOT, "%,d tokens, page %d", prompt, page));
                return fresh;
            });
            JsonNode pm = r.path("primaryMetric");
            double toMicros = toMicros(pm.path("scoreUnit").asText());
            row.put(PIVOT_KEY + params.path("ranks").asText(),
                    pm.path("scorePercentiles").path("50.0").asDouble() * toMicros);
            row.put(PIVOT_P99_KEY + params.path("ranks").asText(),
                    pm.path("scorePercentiles").path("99.0").asDouble() * toMicros);
        }
        ResultsSection base = old != null ? old : new ResultsSection(measured.command(), null, null, null, null);
        ResultsSection merged = base.withRows(List.of("prompt", "page"), List.copyOf(rows.values()));
        List<ResultsSection.Column> columns = pivotColumns(merged.rows());
        return new ResultsSection(merged.command(), FleetResults.mergeMeasured(merged.measured(), measured),
                columns, merged.rows(), merged.plots().isEmpty() ? List.of(curvePlot(columns)) : merged.plots());
    }

    /**
     * cache_aware's grid of {@code workers x promptChars x treeBudget} as a curve; {@code old} may be null. A row per
     * prompt length ({@code prompt}, e.g. {@code 8,000 chars}), whose cells are merged into the row of the same prompt
     * (so the tree memory {@code TreeMemory --curve} adds to it stays): the sample-time median in µs per worker count,
     * keyed {@code median_us_<workers>} with the configured tree budget and {@code engine_us_<workers>} with the
     * engine-sized one. Columns: {@link #cacheAwareColumns}; a bar chart of the configured-budget medians.
     */
    public static ResultsSection cacheAwareCurve(ResultsSection old, JsonNode jmh, ResultsSection.Measured measured) {
        Map<Integer, Map<String, Object>> rows = new LinkedHashMap<>();
        for (JsonNode r : jmh) {
            JsonNode params = r.path("params");
            Map<String, Object> row = rows.computeIfAbsent(params.path("promptChars").asInt(), JmhResults::promptRow);
            JsonNode pm = r.path("primaryMetric");
            String key = ("engine".equals(params.path("treeBudget").asText()) ? ENGINE_KEY : PIVOT_KEY)
                    + params.path("workers").asText();
            row.put(key, pm.path("scorePercentiles").path("50.0").asDouble() * toMicros(pm.path("scoreUnit").asText()));
        }
        ResultsSection base = old != null ? old : new ResultsSection(measured.command(), null, null, null, null);
        ResultsSection merged = base.withCells(List.of("prompt"), List.copyOf(rows.values()));
        return new ResultsSection(merged.command(), FleetResults.mergeMeasured(merged.measured(), measured),
                cacheAwareColumns(merged.rows()), merged.rows(), List.of(cacheAwarePlot(merged.rows())));
    }

    /** A fresh row of the cache_aware curve for a prompt of {@code chars} characters. */
    public static Map<String, Object> promptRow(int chars) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("prompt", String.format(Locale.ROOT, "%,d chars", chars));
        return row;
    }

    /**
     * The cache_aware curve's columns: the prompt; per worker count the medians with the configured and the
     * engine-sized budget; the tree's bytes per stored character at each worker count ({@code bytes_per_char_<w>}).
     */
    public static List<ResultsSection.Column> cacheAwareColumns(List<Map<String, Object>> rows) {
        List<ResultsSection.Column> columns = new ArrayList<>(List.of(ResultsSection.Column.of("prompt", "prompt")));
        List<Integer> workers = rows.stream().flatMap(r -> r.keySet().stream())
                .filter(k -> k.startsWith(PIVOT_KEY) || k.startsWith(ENGINE_KEY) || k.startsWith(BYTES_KEY))
                .map(k -> Integer.parseInt(k.substring(k.lastIndexOf('_') + 1))).distinct().sorted().toList();
        for (int w : workers) {
            columns.add(ResultsSection.Column.of(w + " workers: median µs, budget configured / engine",
                    "%,.1f / %,.1f", PIVOT_KEY + w, ENGINE_KEY + w));
        }
        if (!workers.isEmpty()) {
            columns.add(new ResultsSection.Column("tree bytes per stored char, "
                    + workers.stream().map(String::valueOf).collect(Collectors.joining(" / ")) + " workers",
                    workers.stream().map(w -> BYTES_KEY + w).toList(),
                    workers.stream().map(w -> "%.2f").collect(Collectors.joining(" / "))));
        }
        return columns;
    }

    /** A bar per prompt length, one series per worker count: the configured-budget medians. */
    static ResultsSection.Plot cacheAwarePlot(List<Map<String, Object>> rows) {
        List<ResultsSection.Series> series = rows.stream().flatMap(r -> r.keySet().stream())
                .filter(k -> k.startsWith(PIVOT_KEY)).map(k -> Integer.parseInt(k.substring(PIVOT_KEY.length())))
                .distinct().sorted().map(w -> new ResultsSection.Series(w + " workers", PIVOT_KEY + w)).toList();
        return new ResultsSection.Plot("cache-aware-curve.png", "bar",
                "cache_aware decision, median µs, by prompt length (configured tree budget)", "prompt", "median µs",
                0.0, null, series);
    }

    /** A bar per prompt and page, one series per rank count: how the median grows with the ranks. */
    static ResultsSection.Plot curvePlot(List<ResultsSection.Column> columns) {
        List<ResultsSection.Series> series = columns.stream().filter(c -> c.keys().get(0).startsWith(PIVOT_KEY))
                .map(c -> new ResultsSection.Series(c.keys().get(0).substring(PIVOT_KEY.length()) + " ranks",
                        c.keys().get(0)))
                .toList();
        return new ResultsSection.Plot("decision-cost-curve.png", "bar",
                "kv_aware decision, median µs, by prompt and page size", "curve", "median µs", 0.0, null, series);
    }

    /**
     * The ingest table from {@code KvIngestBenchmark}'s results; {@code old} may be null. A row per {@code ranks}
     * (replacing the row of the same count): {@code ingest_events_per_s} (block events per second on one thread) and
     * {@code ingest_events_per_cpu_s} (per second of that thread's CPU time, from the {@code events} and
     * {@code cpuNanos} counters),
     * the idle lookup's p50 and p99 ({@code idle_p50_us}, {@code idle_p99_us}), the lookup's while the paced ingest
     * runs ({@code busy_p50_us}, {@code busy_p99_us}), that ingest's target and achieved rate ({@code paced_target},
     * {@code paced_events_per_s}: events per batch over its mean time per batch) and the p99 ratio busy / idle.
     */
    public static ResultsSection ingest(ResultsSection old, JsonNode jmh, ResultsSection.Measured measured) {
        Map<Integer, Map<String, Object>> rows = new LinkedHashMap<>();
        for (JsonNode r : jmh) {
            JsonNode params = r.path("params");
            Map<String, Object> row = rows.computeIfAbsent(params.path("ranks").asInt(), k -> {
                Map<String, Object> fresh = new LinkedHashMap<>();
                fresh.put("ranks", k);
                return fresh;
            });
            String name = r.path("benchmark").asText();
            JsonNode pm = r.path("primaryMetric");
            JsonNode sm = r.path("secondaryMetrics");
            if (name.endsWith(".ingest")) {
                row.put("ingest_events_per_s", pm.path("score").asDouble());
                double cpuNanos = sm.path("cpuNanos").path("score").asDouble();
                if (cpuNanos > 0) {
                    row.put("ingest_events_per_cpu_s", sm.path("events").path("score").asDouble() * 1e9 / cpuNanos);
                }
            } else if (name.endsWith(".lookupIdle")) {
                row.put("idle_p50_us", pm.path("scorePercentiles").path("50.0").asDouble());
                row.put("idle_p99_us", pm.path("scorePercentiles").path("99.0").asDouble());
            } else if (name.endsWith(".underIngest")) {
                row.put("busy_p50_us", sm.path("lookupUnderIngest:p0.50").path("score").asDouble());
                row.put("busy_p99_us", sm.path("lookupUnderIngest:p0.99").path("score").asDouble());
                row.put("paced_target", params.path("ingestRate").asDouble());
                row.put("paced_events_per_s", INGEST_EVENTS_PER_BATCH * 1e6
                        / sm.path("pacedIngest").path("score").asDouble());
            }
        }
        for (Map<String, Object> row : rows.values()) {
            if (row.get("busy_p99_us") instanceof Double busy && row.get("idle_p99_us") instanceof Double idle) {
                row.put("p99_ratio", busy / idle);
            }
        }
        ResultsSection base = old != null ? old : new ResultsSection(measured.command(), null, null, null, null);
        ResultsSection merged = base.withRows(List.of("ranks"), List.copyOf(rows.values()));
        return new ResultsSection(merged.command(), FleetResults.mergeMeasured(merged.measured(), measured),
                ingestColumns(), merged.rows(), merged.plots());
    }

    private static List<ResultsSection.Column> ingestColumns() {
        return List.of(ResultsSection.Column.of("ranks indexed", "ranks"),
                ResultsSection.Column.of("ingest, block events/s: wall / CPU time (one thread)", "%,.0f / %,.0f",
                        "ingest_events_per_s", "ingest_events_per_cpu_s"),
                ResultsSection.Column.of("lookup idle p50 / p99 µs", "%.1f / %.1f", "idle_p50_us", "idle_p99_us"),
                ResultsSection.Column.of("paced ingest: target / achieved events/s", "%,.0f / %,.0f", "paced_target",
                        "paced_events_per_s"),
                ResultsSection.Column.of("lookup meanwhile p50 / p99 µs", "%.1f / %.1f", "busy_p50_us",
                        "busy_p99_us"),
                ResultsSection.Column.of("p99 busy / idle", "%.1fx", "p99_ratio"));
    }

    private static List<ResultsSection.Column> pivotColumns(List<Map<String, Object>> rows) {
        List<ResultsSection.Column> columns = new ArrayList<>(List.of(ResultsSection.Column.of("prompt", "prompt"),
                ResultsSection.Column.of("page", "page")));
        rows.stream().flatMap(r -> r.keySet().stream()).filter(k -> k.startsWith(PIVOT_KEY))
                .map(k -> Integer.parseInt(k.substring(PIVOT_KEY.length()))).distinct().sorted()
                .forEach(ranks -> columns.add(ResultsSection.Column.of(ranks + " ranks: p50 / p99 µs",
                        "%,.1f / %,.1f", PIVOT_KEY + ranks, PIVOT_P99_KEY + ranks)));
        return columns;
    }

    private static double toMicros(String unit) {
        return switch (unit) {
            case "ns/op" -> 1e-3;
            case "ms/op" -> 1e3;
            case "s/op" -> 1e6;
            default -> 1;
        };
    }

    private static String figure(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    private static List<ResultsSection.Column> columns() {
        return List.of(ResultsSection.Column.of("operation", "operation"),
                ResultsSection.Column.of("setting", "setting"),
                ResultsSection.Column.of("median µs", "%,.2f", "median_us"),
                ResultsSection.Column.of("also", "also"));
    }

    /**
     * {@code JmhResults [--pivot|--curve|--ingest] JMH_JSON SECTION_JSON [COMMAND]}: merges (pivots, lays out the curve of,
     * the first into the second.
     */
    public static void main(String[] arguments) throws IOException {
        String mode = arguments.length > 0 && arguments[0].startsWith("--") ? arguments[0] : "";
        String[] args = mode.isEmpty() ? arguments : Arrays.copyOfRange(arguments, 1, arguments.length);
        if (args.length < 2 || !List.of("", "--pivot", "--curve", "--ingest").contains(mode)) {
            System.err.println("usage: JmhResults [--pivot|--curve|--ingest] JMH_JSON SECTION_JSON [COMMAND]"
                    + "   (JMH with -rf json -rff JMH_JSON)");
            System.exit(2);
        }
        Path section = Path.of(args[1]);
        JsonNode jmh = new ObjectMapper().readTree(Path.of(args[0]).toFile());
        Set<String> operations = new LinkedHashSet<>();
        String machine = null;
        for (JsonNode r : jmh) {
            operations.add((String) row(new ResultsSection("-", null, null, null, null), r).get("operation"));
            machine = Runtime.getRuntime().availableProcessors() + " cores (shared), " + r.path("vmName").asText()
                    + " " + r.path("jdkVersion").asText();
        }
        String load = Files.isReadable(Path.of("/proc/loadavg"))
                ? Files.readString(Path.of("/proc/loadavg")).split(" ")[0] : null;
        ResultsSection.Measured m = new ResultsSection.Measured(List.copyOf(operations),
                args.length > 2 ? args[2] : "JMH results " + args[0], FleetResults.gitCommit(),
                LocalDate.now(ZoneOffset.UTC).toString(), machine, load);
        ResultsSection old = Files.isRegularFile(section) ? ResultsSection.read(section) : null;
        ResultsSection out = switch (mode) {
            case "--pivot" -> pivot(old, jmh, m);
            case "--curve" -> cacheAwareCurve(old, jmh, m);
            case "--ingest" -> ingest(old, jmh, m);
            default -> merge(old, jmh, m);
        };
        out.write(section);
        System.err.println((mode.isEmpty() ? "merged " : mode.substring(2) + ": ") + jmh.size() + " JMH results into "
                + section);
    }
}
