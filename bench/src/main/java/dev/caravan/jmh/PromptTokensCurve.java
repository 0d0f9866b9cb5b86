package dev.caravan.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import dev.caravan.bench.results.MeasuredRows;
import dev.caravan.processors.request.RequestKind;
import dev.caravan.processors.request.RoutingText;
import dev.caravan.tokens.LocalModel;

/**
 * A new turn's prompt tokens over the length of the conversation before it: chats whose history (a system prompt and
 * user/assistant turns of ~250 tokens) is about 2k, 32k and 128k tokens of the model's own, each request the same
 * history and a new user turn of ~200 tokens, as the next request of a conversation is. Measured in CPU time of the
 * calling thread, interleaved (each round one request of every history size, so a load spike falls on all alike),
 * medians over the rounds, like {@link PromptTokensCpu}: {@code render} (the model's chat template on Jinjava),
 * {@code encode} (the rendering encoded through the chunk cache: the history's chunks hit, the new turn is encoded)
 * and their sum, the {@code tokenizePrompt} step's work; beside it the steps before it that also read the whole body
 * ({@code parse}: the body's JSON read into a map as {@code parseRequest} does; {@code routingText}:
 * {@link RoutingText#extract}). Prints a table and merges one row per history size, every model's figures in it, into
 * {@code --results FILE}. Run from the repository root: {@code java -cp bench/target/caravan-bench.jar
 * dev.caravan.jmh.PromptTokensCurve [rounds] [--results docs/bench/results/prompt-tokens-curve.json]}.
 */
public final class PromptTokensCurve {

    /** The histories' sizes, in the model's tokens. */
    static final int[] HISTORY_TOKENS = {2_048, 32_768, 131_072};
    /** The models: their directory under models/, and the key prefix of their figures in a row. */
    private static final Map<String, String> MODELS = new LinkedHashMap<>();
    /** Characters of the new user turn (~200 tokens of {@link Prompts#words}). */
    private static final int NEW_TURN_CHARS = 400;
    /** Characters per line of a turn, and lines per turn. */
    private static final int LINE_CHARS = 250;
    private static final int LINES_PER_TURN = 4;

    static {
        MODELS.put("qwen3", "qwen3");
        MODELS.put("mistral_nemo", "nemo");
    }

    private PromptTokensCurve() {
    }

    public static void main(String[] args) throws Exception {
        MeasuredRows run = MeasuredRows.start(PromptTokensCurve.class, args);
        int rounds = run.args().isEmpty() ? 200 : Integer.parseInt(run.args().get(0));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        ObjectMapper json = new ObjectMapper();
        ObjectReader reader = json.readerFor(Map.class);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int h : HISTORY_TOKENS) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("history_tokens", h);
            rows.add(row);
        }
        System.out.println("| model | history target | history tokens | prompt tokens | new turn tokens | render µs | encode µs | total µs "
                + "| total p90 µs | whole encode µs | parse µs | routing text µs |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, String> m : MODELS.entrySet()) {
            try (LocalModel model = PromptTokensBenchmark.model(m.getKey())) {
                int n = HISTORY_TOKENS.length;
                List<Map<String, Object>> bodies = new ArrayList<>();
                for (int h : HISTORY_TOKENS) {
                    bodies.add(conversation(model, h));
                }
                // [size][render, encode, total, parse, routing text][round]
                long[][][] ns = new long[n][5][rounds];
                long turn = 0;
                for (int r = -rounds / 4; r < rounds; r++) { // the first quarter warms up
                    turn++;
                    for (int s = 0; s < n; s++) {
                        Map<String, Object> body = bodies.get(s);
                        newTurn(body, turn);
                        byte[] bytes = json.writeValueAsBytes(body);
                        long t0 = cpu.getCurrentThreadCpuTime();
                        Map<String, Object> parsed = reader.readValue(bytes);
                        long t1 = cpu.getCurrentThreadCpuTime();
                        String text = RoutingText.extract(RequestKind.CHAT, parsed);
                        long t2 = cpu.getCurrentThreadCpuTime();
                        String rendered = model.render(parsed);
                        long t3 = cpu.getCurrentThreadCpuTime();
                        int[] ids = model.encodeChat(rendered);
                        long t4 = cpu.getCurrentThreadCpuTime();
                        if (ids.length == 0 || text.isEmpty()) {
                            throw new IllegalStateException("no tokens");
                        }
                        if (r >= 0) {
                            ns[s][0][r] = t3 - t2;
                            ns[s][1][r] = t4 - t3;
                            ns[s][2][r] = t4 - t2;
                            ns[s][3][r] = t1 - t0;
                            ns[s][4][r] = t2 - t1;
                        }
                    }
                }
                for (int s = 0; s < n; s++) {
                    Map<String, Object> body = bodies.get(s);
                    String rendered = model.render(body);
                    int[] whole = model.encode(rendered, false);
                    if (!Arrays.equals(whole, model.encodeChat(rendered))) {
                        throw new IllegalStateException("the chunk cache gave other ids than the whole rendering");
                    }
                    long[] wholeNs = new long[3];
                    for (int i = 0; i < wholeNs.length; i++) {
                        long t0 = cpu.getCurrentThreadCpuTime();
                        model.encode(rendered, false);
                        wholeNs[i] = cpu.getCurrentThreadCpuTime() - t0;
                    }
                    int newTurn = model.encode(lastContent(body), false).length;
                    String p = m.getValue();
                    Map<String, Object> row = rows.get(s);
                    row.put(p + "_history_tokens", tokens(model, body));
                    row.put(p + "_prompt_tokens", whole.length);
                    row.put(p + "_new_turn_tokens", newTurn);
                    row.put(p + "_render_us", round1(quantile(ns[s][0], 0.5)));
                    row.put(p + "_encode_us", round1(quantile(ns[s][1], 0.5)));
                    row.put(p + "_total_us", round1(quantile(ns[s][2], 0.5)));
                    row.put(p + "_total_p90_us", round1(quantile(ns[s][2], 0.9)));
                    row.put(p + "_whole_encode_us", round1(quantile(wholeNs, 0.5)));
                    row.put(p + "_parse_us", round1(quantile(ns[s][3], 0.5)));
                    row.put(p + "_routing_text_us", round1(quantile(ns[s][4], 0.5)));
                    System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f "
                                    + "| %,.0f | %,.0f |%n", m.getKey(), HISTORY_TOKENS[s], row.get(p + "_history_tokens"), whole.length, newTurn,
                            quantile(ns[s][0], 0.5), quantile(ns[s][1], 0.5), quantile(ns[s][2], 0.5),
                            quantile(ns[s][2], 0.9), quantile(wholeNs, 0.5), quantile(ns[s][3], 0.5),
                            quantile(ns[s][4], 0.5));
                }
                double first = (Double) rows.get(0).get(m.getValue() + "_total_us");
                for (Map<String, Object> row : rows) {
                    row.put(m.getValue() + "_vs_first", Math.round((Double) row.get(m.getValue() + "_total_us")
                            / first * 100) / 100.0);
                }
                System.out.printf(Locale.ROOT, "%s: total at %,d / at %,d history tokens: %.2f×%n", m.getKey(),
                        HISTORY_TOKENS[n - 1], HISTORY_TOKENS[0], rows.get(n - 1).get(m.getValue() + "_vs_first"));
            }
        }
        rows.forEach(run::add);
        run.write(List.of("history_tokens"), List.of("prompt tokens over the history"));
    }

    /**
     * A chat whose history renders to about {@code historyTokens} of the model's tokens, then a user turn (replaced by
     * {@link #newTurn} each round). The number of turns comes from the tokens of two shorter histories.
     */
    static Map<String, Object> conversation(LocalModel model, int historyTokens) {
        int small = tokens(model, withTurns(8));
        int large = tokens(model, withTurns(16));
        double perTurn = (large - small) / 8.0;
        int turns = (int) Math.max(2, Math.round((historyTokens - (small - 8 * perTurn)) / perTurn));
        turns += (int) Math.round((historyTokens - tokens(model, withTurns(turns))) / perTurn);
        return withTurns(Math.max(2, turns + turns % 2)); // ends with the assistant's turn, before the new user turn
    }

    /** The tokens of the body's rendering without its last (the new) user turn. */
    static int tokens(LocalModel model, Map<String, Object> body) {
        List<?> messages = (List<?>) body.get("messages");
        Map<String, Object> history = new LinkedHashMap<>(body);
        history.put("messages", messages.subList(0, messages.size() - 1));
        return model.encode(model.render(history), false).length;
    }

    /** A system prompt, {@code turns} user/assistant turns of {@link #LINES_PER_TURN} lines, and a user turn. */
    private static Map<String, Object> withTurns(int turns) {
        List<Object> messages = new ArrayList<>();
        messages.add(Map.of("role", "system", "content", "You plan caravan routes across the desert. "
                + Prompts.words(3, 1_000)));
        for (int t = 0; t < turns; t++) {
            StringBuilder text = new StringBuilder();
            for (int l = 0; l < LINES_PER_TURN; l++) {
                text.append(l == 0 ? "" : "\n").append(Prompts.words(1_000_003L * t + l, LINE_CHARS));
            }
            messages.add(Map.of("role", t % 2 == 0 ? "user" : "assistant", "content", text.toString()));
        }
        messages.add(Map.of("role", "user", "content", "Q0"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("messages", messages);
        return body;
    }

    /** Replaces the last user turn with the {@code n}-th new one. */
    @SuppressWarnings("unchecked")
    private static void newTurn(Map<String, Object> body, long n) {
        List<Object> messages = (List<Object>) body.get("messages");
        messages.set(messages.size() - 1, Map.of("role", "user", "content",
                "Q" + n + " " + Prompts.words(7_919L * n, NEW_TURN_CHARS)));
    }

    @SuppressWarnings("unchecked")
    private static String lastContent(Map<String, Object> body) {
        List<Object> messages = (List<Object>) body.get("messages");
        return (String) ((Map<String, Object>) messages.get(messages.size() - 1)).get("content");
    }

    private static double quantile(long[] nanos, double q) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.floor(q * s.length))] / 1e3;
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
