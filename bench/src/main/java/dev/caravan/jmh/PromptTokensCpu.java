package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.caravan.bench.results.MeasuredRows;
import dev.caravan.tokens.LocalModel;

/**
 * {@link PromptTokensBenchmark}'s operations measured in CPU time of the calling thread, interleaved (one call of each
 * per round, so a load spike from other processes falls on all of them alike), medians over the rounds: on a shared
 * machine, where JMH's wall-clock scores carry error bars larger than themselves, the CPU a request's tokens cost
 * the gateway. {@code whole} is the path before the chunk cache (render, encode the whole rendering), {@code newTurn}
 * the path after it on the next request of a tenant or conversation (only the new last turn is encoded),
 * {@code repeat} the same request again. Prints a table of every model and shape; {@code --results FILE} merges the
 * {@code b2b} shape's rows (operation {@code prompt tokens}: {@code newTurn} as the median, {@code whole} beside it;
 * keyed by {@code benchmark} and {@code params} like {@code JmhResults}' rows) into the decision-cost section. Run from
 * the repository root: {@code java -cp bench/target/caravan-bench.jar dev.caravan.jmh.PromptTokensCpu [rounds]
 * [--results docs/bench/results/decision-cost.json]}.
 */
public final class PromptTokensCpu {

    /** The rows' {@code operation}. */
    static final String OPERATION = "prompt tokens";
    /** The shape whose rows go to the results page. */
    static final String PAGE_SHAPE = "b2b";
    /** How the page names each model. */
    private static final Map<String, String> MODELS = Map.of(
            "mistral_nemo", "Mistral NeMo template and tokenizer",
            "qwen3", "Qwen3");

    private PromptTokensCpu() {
    }

    public static void main(String[] args) throws Exception {
        MeasuredRows run = MeasuredRows.start(PromptTokensCpu.class, args);
        int rounds = run.args().isEmpty() ? 200 : Integer.parseInt(run.args().get(0));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        System.out.println("| model | shape | tokens | render µs | whole µs (before) | newTurn µs (after) | repeat µs "
                + "| whole / newTurn |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        for (String name : List.of("mistral_nemo", "qwen3")) {
            try (LocalModel model = PromptTokensBenchmark.model(name)) {
                for (String shape : new String[] {"b2b", "2", "40"}) {
                    Map<String, Object> body = PromptTokensBenchmark.body(shape);
                    long[][] ns = new long[4][rounds];
                    long turn = 0;
                    int tokens = 0;
                    for (int r = -rounds / 4; r < rounds; r++) { // the first quarter warms up
                        long t0 = cpu.getCurrentThreadCpuTime();
                        String rendered = model.render(body);
                        long t1 = cpu.getCurrentThreadCpuTime();
                        int[] whole = model.encode(model.render(body), false);
                        long t2 = cpu.getCurrentThreadCpuTime();
                        PromptTokensBenchmark.newTurn(body, ++turn);
                        int[] chunked = model.chat(body);
                        long t3 = cpu.getCurrentThreadCpuTime();
                        int[] again = model.chat(body);
                        long t4 = cpu.getCurrentThreadCpuTime();
                        if (!Arrays.equals(chunked, again) || rendered.isEmpty()) {
                            throw new IllegalStateException("the same request gave other tokens");
                        }
                        if (r >= 0) {
                            ns[0][r] = t1 - t0;
                            ns[1][r] = t2 - t1;
                            ns[2][r] = t3 - t2;
                            ns[3][r] = t4 - t3;
                            tokens = whole.length;
                        }
                    }
                    double w = median(ns[1]);
                    double n = median(ns[2]);
                    System.out.printf(Locale.ROOT, "| %s | %s | %,d | %,.0f | %,.0f | %,.0f | %,.0f | %.1f× |%n", name,
                            shape, tokens, median(ns[0]), w, n, median(ns[3]), w / n);
                    if (PAGE_SHAPE.equals(shape)) {
                        run.add(row(name, shape, n, w));
                    }
                }
            }
        }
        run.write(List.of("benchmark", "params"), List.of(OPERATION));
    }

    /** A decision-cost row: the CPU µs of a new turn with the chunk cache, and of the whole prompt without it. */
    static Map<String, Object> row(String model, String shape, double newTurnMicros, double wholeMicros) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("operation", OPERATION);
        row.put("setting", shape + " chat, " + MODELS.getOrDefault(model, model) + ", a new turn");
        row.put("median_us", Math.round(newTurnMicros));
        row.put("also", String.format(Locale.ROOT, "CPU time; %,.0f without the chunk cache", wholeMicros));
        row.put("benchmark", PromptTokensCpu.class.getSimpleName());
        row.put("params", "model=" + model + ", shape=" + shape);
        return row;
    }

    private static double median(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[s.length / 2] / 1e3;
    }
}
