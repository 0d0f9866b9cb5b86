package dev.caravan.bench.workload;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Replays an Azure LLM inference trace (CSV {@code TIMESTAMP,ContextTokens,GeneratedTokens}) for its arrival
 * burstiness and length mix. The trace has no content, so a tenant model is overlaid: each request belongs to a tenant
 * drawn from a {@link Popularity} and starts with that tenant's prefix of {@code min(prefixTokens, context − 1)} tokens;
 * the rest of its context is unique text. Requests are completions sent at {@code (timestamp − first) / speedup}.
 */
public final class AzureTrace implements Workload {

    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss").optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd().toFormatter(Locale.ROOT);

    private record Row(long nanos, int context, int generated) {
    }

    private final Path file;
    private final List<Row> rows;
    private final double speedup;
    private final int tenants;
    private final int prefixTokens;
    private final Popularity popularity;
    private final int maxOutputTokens;
    private final int warmup;
    private final long seed;

    /** @param warmup requests left out of the statistics (negative = the first fifth) */
    public AzureTrace(Path file, int limit, double speedup, int tenants, int prefixTokens, String popularity,
                      int maxOutputTokens, int warmup, long seed) {
        if (!(speedup > 0) || prefixTokens < 0) {
            throw new IllegalArgumentException("speedup must be > 0 and prefix tokens >= 0, were " + speedup + ", "
                    + prefixTokens);
        }
        this.file = file;
        this.rows = read(file, limit);
        this.warmup = TraceRows.warmup(warmup, rows.size());
        this.speedup = speedup;
        this.tenants = tenants;
        this.prefixTokens = prefixTokens;
        this.popularity = Popularity.parse(popularity, tenants);
        this.maxOutputTokens = maxOutputTokens;
        this.seed = seed;
    }

    private static List<Row> read(Path file, int limit) {
        List<Row> absolute = TraceRows.read(file, limit, header -> {
            if (header == null || !header.toLowerCase(Locale.ROOT).startsWith("timestamp,")) {
                throw new IllegalArgumentException(file + " is not an Azure trace: header should be "
                        + "TIMESTAMP,ContextTokens,GeneratedTokens, was " + header);
            }
        }, (n, line) -> {
            String[] f = line.split(",");
            if (f.length < 3) {
                throw new IllegalArgumentException(file + ": bad row '" + line + "'");
            }
            LocalDateTime t = LocalDateTime.parse(f[0].trim(), TIMESTAMP);
            long nanos = t.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L + t.getNano();
            return new Row(nanos, Integer.parseInt(f[1].trim()), Integer.parseInt(f[2].trim()));
        }, "rows");
        long first = absolute.get(0).nanos();
        List<Row> out = new ArrayList<>(absolute.size());
        for (Row r : absolute) {
            out.add(new Row(r.nanos() - first, r.context(), r.generated()));
        }
        out.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
        return out;
    }

    @Override
    public String name() {
        return "trace";
    }

    @Override
    public String description() {
        double span = rows.get(rows.size() - 1).nanos() / 1e9;
        return String.format(Locale.ROOT, "trace %s (Azure): %,d requests over %.0f s, replayed %.1f× faster "
                + "(%.2f req/s); overlaid tenants: %,d × %,d-token prefix, popularity %s; %s; %,d warm-up",
                file.getFileName(), rows.size(), span, speedup, rows.size() / Math.max(1e-9, span / speedup), tenants,
                prefixTokens, popularity.spec(), TraceRows.outputNote(maxOutputTokens), warmup);
    }

    @Override
    public Map<String, Object> parameters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", file.getFileName().toString());
        m.put("format", "azure");
        m.put("requests", rows.size());
        m.put("speedup", speedup);
        m.put("tenants", tenants);
        m.put("prefix_tokens", prefixTokens);
        m.put("popularity", popularity.spec());
        m.put("max_output_tokens", maxOutputTokens);
        m.put("warmup", warmup);
        m.put("seed", seed);
        return m;
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        SplittableRandom picks = new SplittableRandom(seed ^ Arrivals.PICKS_SALT);
        return Arrivals.indexed(rows.size(), i -> {
            Row r = rows.get(i);
            int tenant = popularity.sample(picks);
            int context = Math.max(2, r.context());
            int prefix = Math.min(prefixTokens, context - 1);
            StringBuilder sb = new StringBuilder(4 * context);
            TextSource.append(sb, TextSource.seedOf(seed, "tenant", tenant), 4 * prefix);
            TextSource.append(sb, TextSource.seedOf(seed, "request", i), 4 * (context - prefix));
            return BenchRequest.completion((long) (r.nanos() / speedup), sb.toString(), "tenant-" + tenant,
                    TraceRows.outputTokens(r.generated(), maxOutputTokens), prefix);
        });
    }

    @Override
    public long expectedRequests() {
        return rows.size();
    }

    @Override
    public int defaultWarmup() {
        return warmup;
    }

    @Override
    public int maxModelLen() {
        return TraceRows.maxModelLen(rows, r -> Math.max(2, r.context()), Row::generated, maxOutputTokens);
    }
}
