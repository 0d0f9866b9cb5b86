package dev.caravan.sim.engine.hybrid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The simulator's hybrid hit rule against {@code vectors/hybrid-hits.json}: cases hand-derived from vLLM's
 * single-type-manager and prefix-caching tests and from its hybrid coordinator, written before this code.
 */
class HybridHitVectorsTest {

    static Stream<JsonNode> cases() throws IOException {
        try (InputStream in = HybridHitVectorsTest.class.getResourceAsStream("/vectors/hybrid-hits.json")) {
            JsonNode root = new ObjectMapper().readTree(in);
            List<JsonNode> out = new ArrayList<>();
            root.path("cases").forEach(out::add);
            return out.stream();
        }
    }

    static GroupRule rule(JsonNode g) {
        int bs = g.path("block_size").asInt();
        return switch (g.path("kind").asText()) {
            case "full_attention" -> new FullAttentionRule(bs);
            case "sliding_window" -> new SlidingWindowRule(bs, g.path("sliding_window").asInt());
            case "chunked_local_attention" -> new ChunkedLocalRule(bs, g.path("attention_chunk_size").asInt());
            case "mamba" -> new MambaRule(bs, MambaRule.DENSE);
            default -> throw new IllegalArgumentException("unknown kind " + g.path("kind"));
        };
    }

    static IntPredicate held(JsonNode g) {
        Set<Integer> blocks = new HashSet<>();
        g.path("held").forEach(b -> blocks.add(b.asInt()));
        return blocks::contains;
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("cases")
    void hitLengthIsVllms(JsonNode c) {
        List<GroupRule> rules = new ArrayList<>();
        List<IntPredicate> held = new ArrayList<>();
        c.path("groups").forEach(g -> {
            rules.add(rule(g));
            held.add(held(g));
        });

        int hit = HybridHit.longest(rules, held, c.path("max_length").asInt());

        assertThat(hit).as(c.path("name").asText()).isEqualTo(c.path("expected_hit_tokens").asInt());
    }

    @Test
    void theVectorFileCoversEveryLayoutTheSimulatorOffers() throws IOException {
        Set<String> kinds = new HashSet<>();
        Set<Integer> groupCounts = new HashSet<>();
        cases().forEach(c -> {
            c.path("groups").forEach(g -> kinds.add(g.path("kind").asText()));
            groupCounts.add(c.path("groups").size());
        });

        assertThat(kinds).containsExactlyInAnyOrder("full_attention", "sliding_window", "chunked_local_attention",
                "mamba");
        assertThat(groupCounts).contains(1, 2, 3);
        assertThat(cases().count()).isEqualTo(52);
    }

    @Test
    void refusesGroupsOfDifferentBlockSizes() {
        assertThatThrownBy(() -> HybridHit.longest(List.of(new FullAttentionRule(16), new MambaRule(32, 1)),
                List.of(i -> true, i -> true), 64))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("groups must share one block size, got 16 and 32");
    }
}
