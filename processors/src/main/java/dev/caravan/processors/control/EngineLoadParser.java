package dev.caravan.processors.control;

import com.fasterxml.jackson.databind.JsonNode;

import dev.caravan.processors.Json;

/**
 * Reads an engine's own load from its {@code /get_load} JSON and its Prometheus {@code /metrics} text.
 *
 * <ul>
 *   <li>{@code /get_load} (SGLang): an object or an array of objects (one per data-parallel rank) with
 *       {@code num_tokens}, {@code num_reqs}, {@code num_waiting_reqs}; values are summed over ranks.</li>
 *   <li>{@code /metrics}: vLLM's {@code vllm:num_requests_running}, {@code vllm:num_requests_waiting},
 *       {@code vllm:kv_cache_usage_perc} (or the older {@code vllm:gpu_cache_usage_perc}), or SGLang's
 *       {@code sglang:num_running_reqs}, {@code sglang:num_queue_reqs}, {@code sglang:token_usage}. Counts are summed
 *       over label sets; KV usage is the maximum (the fullest pool decides admission).</li>
 * </ul>
 * Unknown or missing values are {@code -1}.
 */
final class EngineLoadParser {

    /** Load figures from one endpoint; -1 where the endpoint says nothing. */
    record Figures(long tokens, int running, int waiting, double kvUsage) {
        static final Figures NONE = new Figures(-1, -1, -1, -1);
    }

    private EngineLoadParser() {
    }

    static Figures fromGetLoad(String body) {
        JsonNode root = Json.tree(body);
        if (root == null) {
            return Figures.NONE;
        }
        long tokens = -1;
        int running = -1;
        int waiting = -1;
        Iterable<JsonNode> ranks = root.isArray() ? root : java.util.List.of(root);
        for (JsonNode rank : ranks) {
            tokens = add(tokens, rank.path("num_tokens"));
            running = (int) add(running, rank.path("num_reqs"));
            waiting = (int) add(waiting, rank.path("num_waiting_reqs"));
        }
        return new Figures(tokens, running, waiting, -1);
    }

    private static long add(long acc, JsonNode n) {
        if (!n.canConvertToLong()) {
            return acc;
        }
        return (acc < 0 ? 0 : acc) + n.asLong();
    }

    static Figures fromMetrics(String text) {
        if (text == null) {
            return Figures.NONE;
        }
        double running = -1;
        double waiting = -1;
        double kv = -1;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.charAt(0) == '#') {
                continue;
            }
            String name = metricName(line);
            double value = value(line);
            if (Double.isNaN(value)) {
                continue;
            }
            switch (name) {
                case "vllm:num_requests_running", "sglang:num_running_reqs" -> running = sum(running, value);
                case "vllm:num_requests_waiting", "sglang:num_queue_reqs" -> waiting = sum(waiting, value);
                case "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage" ->
                        kv = Math.max(kv, value);
                default -> {
                }
            }
        }
        return new Figures(-1, (int) running, (int) waiting, kv);
    }

    private static double sum(double acc, double v) {
        return (acc < 0 ? 0 : acc) + v;
    }

    private static String metricName(String line) {
        int end = 0;
        while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
            end++;
        }
        return line.substring(0, end);
    }

    private static double value(String line) {
        int close = line.lastIndexOf('}');
        String rest = (close >= 0 ? line.substring(close + 1) : line.substring(metricName(line).length())).trim();
        int space = rest.indexOf(' ');
        String v = space >= 0 ? rest.substring(0, space) : rest;
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
