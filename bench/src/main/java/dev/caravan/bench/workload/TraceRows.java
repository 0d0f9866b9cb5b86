package dev.caravan.bench.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * What the trace replays ({@link AzureTrace}, {@link MooncakeTrace}) share: reading a trace file line by line, the
 * warm-up default and the capping of traced answer lengths. Stateless.
 */
final class TraceRows {

    /** Parses one non-blank line; {@code lineNumber} counts the lines after the header from 1, blank ones included. */
    @FunctionalInterface
    interface LineParser<R> {
        R parse(int lineNumber, String line) throws IOException;
    }

    private TraceRows() {
    }

    /**
     * The rows of {@code file}: at most {@code limit} (0 or less = all), blank lines skipped.
     *
     * @param header checks the first line (given null when the file is empty), or null for a file without a header
     * @param noun   what a row is called in the error for a file without any ("rows", "records")
     */
    static <R> List<R> read(Path file, int limit, Consumer<String> header, LineParser<R> parser, String noun) {
        List<R> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            if (header != null) {
                header.accept(r.readLine());
            }
            String line;
            int n = 0;
            while ((line = r.readLine()) != null && (limit <= 0 || out.size() < limit)) {
                n++;
                if (!line.isBlank()) {
                    out.add(parser.parse(n, line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(file + " has no " + noun);
        }
        return out;
    }

    /** The warm-up requests: {@code warmup}, or the first fifth when negative; must leave a measured request. */
    static int warmup(int warmup, int rows) {
        int w = warmup < 0 ? rows / 5 : warmup;
        if (w >= rows) {
            throw new IllegalArgumentException("warmup must be in [0," + rows + "), was " + warmup);
        }
        return w;
    }

    /** The {@code max_tokens} sent for a traced answer length: at least 1, at most {@code cap} when it is positive. */
    static int outputTokens(int traced, int cap) {
        int out = Math.max(1, traced);
        return cap > 0 ? Math.min(out, cap) : out;
    }

    /** How answer lengths are chosen, for a workload description. */
    static String outputNote(int cap) {
        return cap > 0 ? "answers capped at " + cap + " tokens" : "answer lengths as traced";
    }

    /** The longest prompt plus answer over {@code rows}, with 16 tokens to spare. */
    static <R> int maxModelLen(List<R> rows, ToIntFunction<R> promptTokens, ToIntFunction<R> tracedOutput, int cap) {
        int max = 0;
        for (R r : rows) {
            max = Math.max(max, promptTokens.applyAsInt(r) + outputTokens(tracedOutput.applyAsInt(r), cap));
        }
        return max + 16;
    }
}
