package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import dev.caravan.tokens.LocalModel;

/**
 * {@link PromptTokensBenchmark}'s operations measured in CPU time of the calling thread, interleaved (one call of each
 * per round, so a load spike from other processes falls on all of them alike), medians over the rounds: on a shared
 * machine, where JMH's wall-clock scores carry error bars larger than themselves, the CPU a request's tokens cost
 * the gateway. {@code whole} is the path before the chunk cache (render, encode the whole rendering), {@code newTurn}
 * the path after it on the next request of a tenant or conversation (only the new last turn is encoded),
 * {@code repeat} the same request again. Run from the repository root:
 * {@code java -cp bench/target/caravan-bench.jar dev.caravan.jmh.PromptTokensCpu [rounds]}.
 */
public final class PromptTokensCpu {

    private PromptTokensCpu() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        System.out.println("| model | shape | tokens | render µs | whole µs (before) | newTurn µs (after) | repeat µs "
                + "| whole / newTurn |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        for (String name : new String[] {"mistral_nemo", "qwen3"}) {
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
                }
            }
        }
    }

    private static double median(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[s.length / 2] / 1e3;
    }
}
