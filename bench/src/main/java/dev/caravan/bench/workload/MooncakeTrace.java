package dev.caravan.bench.workload;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Replays a Mooncake trace (JSONL: {@code timestamp} ms, {@code input_length}, {@code output_length}, {@code hash_ids}
 * of 512-token blocks) with faithful lengths: each hash id is rendered as 512 tokens (2,048 characters) of text seeded by
 * the id, so equal ids are equal text and, because the ids are prefix-chained, equal leading ids are an equal prompt
 * prefix for the engine's 16-token blocks too; the last block is cut to {@code input_length}. (SGLang's replayer renders
 * an id as ~130 tokens and ignores {@code input_length}.) Requests are completions with {@code max_tokens =
 * output_length}, sent at {@code timestamp / speedup}; the routing key is the first {@code keyBlocks} ids (the trace
 * has no session id, and block 0 is shared by every conversation request).
 */
public final class MooncakeTrace implements Workload {

    /** Tokens per hash id in the Mooncake traces. */
    public static final int BLOCK_TOKENS = 512;

    private record Row(long timestampMs, int input, int output, int[] hashIds) {
    }

    private final Path file;
    private final List<Row> rows;
    private final double speedup;
    private final int keyBlocks;
    private final int maxOutputTokens;
    private final int warmup;
    private final long seed;

    /**
     * @param limit           rows to replay from the start of the file (0 = all)
     * @param maxOutputTokens cap on {@code max_tokens} (0 = the trace's output lengths)
     * @param warmup          requests left out of the statistics (negative = the first fifth)
     */
    public MooncakeTrace(Path file, int limit, double speedup, int keyBlocks, int maxOutputTokens, int warmup,
                         long seed) {
        if (!(speedup > 0) || keyBlocks < 1) {
            throw new IllegalArgumentException("speedup must be > 0 and key blocks >= 1, were " + speedup + ", "
                    + keyBlocks);
        }
        this.file = file;
        this.rows = read(file, limit);
        this.speedup = speedup;
        this.keyBlocks = keyBlocks;
        this.maxOutputTokens = maxOutputTokens;
        this.warmup = TraceRows.warmup(warmup, rows.size());
        this.seed = seed;
    }

    private static List<Row> read(Path file, int limit) {
        ObjectMapper json = new ObjectMapper();
        return TraceRows.read(file, limit, null, (n, line) -> {
            JsonNode j = json.readTree(line);
            JsonNode ids = j.path("hash_ids");
            if (!j.path("timestamp").isNumber() || !j.path("input_length").canConvertToInt() || !ids.isArray()) {
                throw new IllegalArgumentException(file + " line " + n + " is not a Mooncake record "
                        + "(timestamp, input_length, output_length, hash_ids): " + line);
            }
            int[] h = new int[ids.size()];
            for (int i = 0; i < h.length; i++) {
                h[i] = ids.get(i).asInt();
            }
            return new Row(j.get("timestamp").asLong(), j.get("input_length").asInt(),
                    j.path("output_length").asInt(1), h);
        }, "records");
    }

    @Override
    public String name() {
        return "trace";
    }

    @Override
    public String description() {
        long span = rows.get(rows.size() - 1).timestampMs() - rows.get(0).timestampMs();
        return String.format(Locale.ROOT, "trace %s (Mooncake): %,d requests over %.0f s of trace time, replayed %.1f× "
                + "faster (%.2f req/s), hash ids rendered as %d tokens each, routing key = first %d ids, %s, %,d "
                + "warm-up", file.getFileName(), rows.size(), span / 1e3, speedup,
                rows.size() / Math.max(1e-9, span / 1e3 / speedup), BLOCK_TOKENS, keyBlocks,
                TraceRows.outputNote(maxOutputTokens), warmup);
    }

    @Override
    public Map<String, Object> parameters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", file.getFileName().toString());
        m.put("format", "mooncake");
        m.put("requests", rows.size());
        m.put("speedup", speedup);
        m.put("key_blocks", keyBlocks);
        m.put("max_output_tokens", maxOutputTokens);
        m.put("warmup", warmup);
        m.put("seed", seed);
        return m;
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        long t0 = rows.get(0).timestampMs();
        return Arrivals.indexed(rows.size(), i -> {
            Row r = rows.get(i);
            long at = (long) ((r.timestampMs() - t0) * 1e6 / speedup);
            return BenchRequest.completion(at, render(r), key(r), TraceRows.outputTokens(r.output(), maxOutputTokens),
                    0);
        });
    }

    private String render(Row r) {
        int chars = 4 * r.input();
        StringBuilder sb = new StringBuilder(chars);
        for (int i = 0; i < r.hashIds().length && sb.length() < chars; i++) {
            TextSource.append(sb, TextSource.seedOf(seed, "block", r.hashIds()[i]),
                    Math.min(4 * BLOCK_TOKENS, chars - sb.length()));
        }
        if (sb.length() < chars) {
            TextSource.append(sb, TextSource.seedOf(seed, "tail", r.timestampMs() * 31 + r.input()),
                    chars - sb.length());
        }
        return sb.toString();
    }

    private String key(Row r) {
        StringBuilder sb = new StringBuilder("blocks");
        for (int i = 0; i < Math.min(keyBlocks, r.hashIds().length); i++) {
            sb.append('-').append(r.hashIds()[i]);
        }
        return sb.toString();
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
        return TraceRows.maxModelLen(rows, Row::input, Row::output, maxOutputTokens);
    }
}
