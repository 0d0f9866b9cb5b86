package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * Every case of the hybrid-model hit vectors (sim/src/test/resources/vectors/hybrid-hits.json): hand-derived from
 * vLLM's single-type KV-cache managers and its hybrid coordinator, each naming the upstream test it mirrors. The
 * simulator's engine is checked against the same file, so the gateway and the simulator agree with vLLM, not with
 * each other.
 */
class GroupLayoutVectorsTest {

    private static final Path VECTORS = Path.of("..", "sim", "src", "test", "resources", "vectors",
            "hybrid-hits.json");

    @Test
    void everyHandDerivedCaseGivesVllmsHit() throws IOException {
        JsonNode cases = new ObjectMapper().readTree(VECTORS.toFile()).get("cases");
        List<String> wrong = new ArrayList<>();
        for (JsonNode c : cases) {
            int got = hit(c);
            int expected = c.get("expected_hit_tokens").asInt();
            if (got != expected) {
                wrong.add(c.get("name").asText() + " (" + c.get("upstream").asText() + "): " + got + " tokens, vLLM "
                        + expected);
            }
        }

        assertThat(cases.size()).isEqualTo(52);
        assertThat(wrong).isEmpty();
    }

    /** The case's hit in tokens: full-attention groups give the run, the others their rules. */
    private static int hit(JsonNode c) {
        int keyTokens = c.get("groups").get(0).get("block_size").asInt();
        int limit = c.get("max_length").asInt();
        int fullRun = Integer.MAX_VALUE / keyTokens;
        List<GroupRule> rules = new ArrayList<>();
        Map<Integer, Set<Integer>> held = new HashMap<>();
        int g = 0;
        for (JsonNode group : c.get("groups")) {
            Set<Integer> blocks = new HashSet<>();
            group.get("held").forEach(b -> blocks.add(b.asInt()));
            int bs = group.get("block_size").asInt();
            switch (GroupLayout.Kind.of(group.get("kind").asText())) {
                case FULL -> {
                    int run = 0;
                    while (blocks.contains(run)) {
                        run++;
                    }
                    fullRun = Math.min(fullRun, run);
                }
                case SLIDING_WINDOW -> rules.add(new SlidingWindowRule(g, bs, group.get("sliding_window").asInt()));
                case CHUNKED_LOCAL -> rules.add(new ChunkedLocalRule(g, bs,
                        group.get("attention_chunk_size").asInt()));
                case MAMBA -> rules.add(new MambaRule(g, bs));
                default -> throw new IllegalArgumentException("kind " + group.get("kind"));
            }
            held.put(g++, blocks);
        }
        GroupLayout layout = new GroupLayout(keyTokens, rules);
        return layout.hitBlocks(fullRun, limit, (group, i) -> held.get(group).contains(i)) * keyTokens;
    }
}
