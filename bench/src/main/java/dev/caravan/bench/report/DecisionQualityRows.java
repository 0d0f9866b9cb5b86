package dev.caravan.bench.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The decision-quality section of the Markdown report, from the gateway's own counters read off {@code /metrics} at the
 * end of each run ({@link PolicyResult#qualityMetrics()}; the gateway counts them with {@code --decision-quality} and
 * {@code --shadow-policies}, e.g. bench option {@code decision-quality=true}): per live policy, captured ÷ reachable
 * and expected ÷ reachable prompt tokens; per shadow policy, what its picks held against what the live picks held.
 * Runs without those counters are left out; without any, the section is absent.
 */
public final class DecisionQualityRows {

    /** The sample prefixes read from each replica. */
    public static final List<String> PREFIXES = List.of("caravan_decision_", "caravan_shadow_");

    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+)(?:\\{(.*)})?$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private DecisionQualityRows() {
    }

    /** The counters ({@code *_total}) of several replicas, summed by sample (name with labels). */
    public static Map<String, Double> sum(List<Map<String, Double>> perReplica) {
        Map<String, Double> out = new TreeMap<>();
        for (Map<String, Double> replica : perReplica) {
            replica.forEach((sample, value) -> {
                Matcher m = SAMPLE.matcher(sample);
                if (m.matches() && m.group(1).endsWith("_total") && Double.isFinite(value)) {
                    out.merge(sample, value, Double::sum);
                }
            });
        }
        return out;
    }

    static void render(StringBuilder sb, BenchReport r) {
        StringBuilder live = new StringBuilder();
        StringBuilder shadows = new StringBuilder();
        for (PolicyResult p : r.results()) {
            Map<String, Map<String, Double>> byPolicy = byLabel(p.qualityMetrics(), "caravan_decision_", "policy");
            byPolicy.forEach((policy, v) -> live.append("| ").append(p.label()).append(" | ").append(policy)
                    .append(" | ").append(tokens(v.get("expected_tokens_total")))
                    .append(" | ").append(tokens(v.get("reachable_tokens_total")))
                    .append(" | ").append(tokens(v.get("captured_tokens_total")))
                    .append(" | ").append(MarkdownReport.f3(ratio(v.get("captured_tokens_total"),
                            v.get("reachable_tokens_total"))))
                    .append(" | ").append(MarkdownReport.f3(ratio(v.get("expected_tokens_total"),
                            v.get("reachable_tokens_total")))).append(" |\n"));
            Map<String, Map<String, Double>> byShadow = byLabel(p.qualityMetrics(), "caravan_shadow_", "shadow");
            byShadow.forEach((shadow, v) -> shadows.append("| ").append(p.label()).append(" | ").append(shadow)
                    .append(" | ").append(MarkdownReport.f3(ratio(v.get("decisions_total agrees=true"),
                            v.get("decisions_total"))))
                    .append(" | ").append(MarkdownReport.f3(ratio(v.get("expected_tokens_total"),
                            v.get("reachable_tokens_total"))))
                    .append(" | ").append(MarkdownReport.f3(ratio(v.get("baseline_tokens_total"),
                            v.get("reachable_tokens_total")))).append(" |\n"));
        }
        if (!live.isEmpty()) {
            sb.append("\nDecision quality (the gateway's `caravan_decision_*` counters, warm-up included; prompt tokens "
                    + "the chosen engine held, the best engine held, the engine served from cache):\n\n"
                    + "| run | policy | expected | reachable | captured | captured / reachable | expected / reachable |"
                    + "\n|---|---|---:|---:|---:|---:|---:|\n").append(live);
        }
        if (!shadows.isEmpty()) {
            sb.append("\nShadow policies (`caravan_shadow_*`, same requests, held prefixes measured before each live "
                    + "decision):\n\n| run | shadow | agrees with live | shadow pick held / reachable "
                    + "| live pick held / reachable |\n|---|---|---:|---:|---:|\n").append(shadows);
        }
    }

    /**
     * Samples of one family grouped by one label's value: value → (name without the prefix → sum); a sample with an
     * {@code agrees} label is also counted under {@code <name> agrees=<value>}.
     */
    static Map<String, Map<String, Double>> byLabel(Map<String, Double> samples, String prefix, String label) {
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        new TreeMap<>(samples).forEach((sample, value) -> {
            Matcher m = SAMPLE.matcher(sample);
            if (!m.matches() || !m.group(1).startsWith(prefix)) {
                return;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            String key = labels.get(label);
            if (key == null) {
                return;
            }
            String name = m.group(1).substring(prefix.length());
            Map<String, Double> v = out.computeIfAbsent(key, k -> new TreeMap<>());
            v.merge(name, value, Double::sum);
            String agrees = labels.get("agrees");
            if (agrees != null) {
                v.merge(name + " agrees=" + agrees, value, Double::sum);
            }
        });
        return out;
    }

    /**
     * The share of reporting requests whose expected cached tokens equalled the engine's {@code cached_tokens}
     * ({@code caravan_decision_predictions_total}), over every layout and policy of the run, for one reading
     * ({@code groups}: the policy's own; {@code full_attention}: kv_aware's index read as if every group were full
     * attention); null when the run counted none.
     */
    public static Double exactShare(Map<String, Double> samples, String rules) {
        double exact = 0;
        double all = 0;
        for (Map.Entry<String, Double> e : samples.entrySet()) {
            Matcher m = SAMPLE.matcher(e.getKey());
            if (!m.matches() || !m.group(1).equals("caravan_decision_predictions_total") || m.group(2) == null) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            if (rules.equals(labels.get("rules"))) {
                all += e.getValue();
                if ("exact".equals(labels.get("outcome"))) {
                    exact += e.getValue();
                }
            }
        }
        return all == 0 ? null : exact / all;
    }

    private static Double ratio(Double a, Double b) {
        return a == null || b == null || b == 0 ? null : a / b;
    }

    private static String tokens(Double v) {
        return v == null ? "–" : String.format(Locale.ROOT, "%,.0f", v);
    }
}
