package dev.caravan.sim;

import static dev.caravan.sim.Http.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Engines emulating hybrid models report vLLM's hybrid hit as {@code cached_tokens}. The synthetic tokenizer makes
 * one token of every 4 characters: {@link #FIRST} is 110 tokens (6 full blocks of 16), {@link #SIBLING} shares its
 * first 3 blocks.
 */
class HybridEngineTest {

    private static final String SYSTEM = "You are a careful assistant for the caravan company. ".repeat(8);
    private static final String FIRST = SYSTEM + "first question";
    private static final String SIBLING = SYSTEM.substring(0, 212) + "a sibling that leaves the shared text early";

    private static int cached(SimEngine engine, String prompt) {
        Map<String, Object> body = Http.map(Http.post(engine.url() + "/v1/completions", Map.of("prompt", prompt,
                "max_tokens", 4)).body());
        return (Integer) at(body, "usage", "prompt_tokens_details", "cached_tokens");
    }

    @Test
    void slidingWindowEngineServesASharedPrefixWhoseWindowTailIsCached() {
        try (SimEngine engine = SimEngine.start(SimConfig.builder().timeScale(1000).kvGroups("full+swa:32").build())) {
            assertThat(cached(engine, FIRST)).isZero();
            assertThat(cached(engine, SIBLING)).isEqualTo(48);
            assertThat(cached(engine, FIRST)).isEqualTo(96);
        }
    }

    @Test
    void mambaEngineServesOnlyPrefixesEndingAtACachedState() {
        try (SimEngine engine = SimEngine.start(SimConfig.builder().timeScale(1000).kvGroups("full+mamba:16")
                .build())) {
            assertThat(cached(engine, FIRST)).isZero();
            assertThat(cached(engine, SIBLING)).as("no Mamba state within the shared 48 tokens").isZero();
            assertThat(cached(engine, FIRST)).as("the state at the prompt's last block boundary").isEqualTo(96);
        }
    }

    @Test
    void refusesAtOnceARequestWhoseGroupsTogetherExceedThePool() {
        try (SimEngine engine = SimEngine.start(SimConfig.builder().timeScale(1000).kvCapacityTokens(64 * 16)
                .kvGroups("full+swa:32").build())) {
            java.net.http.HttpResponse<String> r = Http.post(engine.url() + "/v1/completions",
                    Map.of("prompt", "a".repeat(640 * 4), "max_tokens", 4));

            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("the request needs 82 KV blocks but the pool holds 64");
        }
    }

    @Test
    void fullAttentionEngineServesTheSharedPrefix() {
        try (SimEngine engine = SimEngine.start(SimConfig.builder().timeScale(1000).build())) {
            assertThat(cached(engine, FIRST)).isZero();
            assertThat(cached(engine, SIBLING)).isEqualTo(48);
        }
    }
}
