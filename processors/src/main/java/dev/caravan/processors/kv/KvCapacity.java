package dev.caravan.processors.kv;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import dev.caravan.processors.Json;

/**
 * An engine's KV pool as it reports it: how many tokens of KV cache it can hold and in blocks of what size. Read from
 * SGLang's (and the simulator's) {@code GET /get_server_info} ({@code max_total_num_tokens}, {@code page_size}), or
 * from vLLM's Prometheus {@code vllm:cache_config_info} labels ({@code num_gpu_blocks} × {@code block_size}), vLLM
 * having no {@code /get_server_info}.
 *
 * @param tokens    KV capacity in tokens (&gt; 0)
 * @param blockSize tokens per block, or 0 when the engine did not say
 */
public record KvCapacity(long tokens, int blockSize) {

    private static final Pattern CACHE_CONFIG = Pattern.compile("^vllm:cache_config_info\\{([^}]*)}", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    public KvCapacity {
        if (tokens <= 0 || blockSize < 0) {
            throw new IllegalArgumentException("KV capacity must be > 0 tokens with a block size >= 0, was " + tokens
                    + " tokens, block size " + blockSize);
        }
    }

    /** From a {@code /get_server_info} body, or null when it names no capacity. */
    public static KvCapacity fromServerInfo(String body) {
        JsonNode root = Json.tree(body);
        if (root == null || !root.isObject()) {
            return null;
        }
        long tokens = root.path("max_total_num_tokens").asLong(-1);
        if (tokens <= 0) {
            tokens = root.path("kv_capacity_tokens").asLong(-1);
        }
        if (tokens <= 0) {
            return null;
        }
        return new KvCapacity(tokens, Math.max(0, root.path("page_size").asInt(0)));
    }

    /** From a Prometheus {@code /metrics} text with {@code vllm:cache_config_info}, or null. */
    public static KvCapacity fromMetrics(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = CACHE_CONFIG.matcher(text);
        if (!m.find()) {
            return null;
        }
        long blocks = -1;
        int blockSize = -1;
        Matcher label = LABEL.matcher(m.group(1));
        while (label.find()) {
            try {
                if (label.group(1).equals("num_gpu_blocks")) {
                    blocks = Long.parseLong(label.group(2));
                } else if (label.group(1).equals("block_size")) {
                    blockSize = Integer.parseInt(label.group(2));
                }
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return blocks > 0 && blockSize > 0 ? new KvCapacity(blocks * blockSize, blockSize) : null;
    }

    /** The tree budget this capacity allows: every token's characters, at {@code charsPerToken}. */
    public long chars(int charsPerToken) {
        return tokens * charsPerToken;
    }
}
