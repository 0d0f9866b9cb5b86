package dev.caravan.processors.kv;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import dev.caravan.processors.Json;

/**
 * How many data-parallel ranks an engine runs, as it reports it: SGLang's (and the simulator's)
 * {@code GET /get_server_info} {@code dp_size}, or — vLLM having no server info — the distinct {@code engine="<rank>"}
 * labels of its Prometheus {@code vllm:*} series (one per engine core behind the API server). 0 when the engine says
 * nothing usable.
 */
public final class DataParallelSize {

    private static final Pattern VLLM_ENGINE = Pattern.compile("^vllm:[^{\\s]*\\{[^}]*\\bengine=\"(\\d+)\"",
            Pattern.MULTILINE);

    private DataParallelSize() {
    }

    /** {@code dp_size} of a {@code /get_server_info} body, 0 when absent. */
    public static int fromServerInfo(String body) {
        JsonNode root = Json.tree(body);
        if (root == null || !root.isObject()) {
            return 0;
        }
        int n = root.path("dp_size").asInt(0);
        return Math.max(0, n);
    }

    /** Distinct {@code engine} labels of vLLM's series, 0 when there are none. */
    public static int fromMetrics(String text) {
        if (text == null) {
            return 0;
        }
        Set<String> engines = new HashSet<>();
        Matcher m = VLLM_ENGINE.matcher(text);
        while (m.find()) {
            engines.add(m.group(1));
        }
        return engines.size();
    }
}
