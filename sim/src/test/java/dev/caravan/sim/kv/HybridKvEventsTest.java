package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.caravan.sim.Http;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

import org.junit.jupiter.api.Test;

/** A hybrid engine publishes each group's stores on the wire, tagged with its group, under one hash chain. */
class HybridKvEventsTest {

    private static void complete(SimEngine engine, String prompt) {
        Http.post(engine.url() + "/v1/completions", Map.of("prompt", prompt, "max_tokens", 1));
    }

    @Test
    void eachGroupStoresThePromptsBlocksUnderItsOwnGroupIndexAndKind() {
        try (SimEngine engine = SimEngine.start(SimConfig.builder().timeScale(1000).kvGroups("full+swa:32+mamba:16")
                .kvEventsEndpoint("tcp://127.0.0.1:*").build());
             KvSubscriber sub = new KvSubscriber(engine.kvEventsEndpoint())) {
            int[] n = {0};
            sub.join(() -> complete(engine, "probe " + n[0]++ + " " + "x".repeat(80)));
            String prompt = "w".repeat(4 * (5 * 16 + 2));                     // 82 tokens: 5 full blocks

            complete(engine, prompt);

            KvEventReader.Event window = sub.awaitEvent(e -> e.type().equals("BlockStored")
                    && Integer.valueOf(1).equals(e.group()) && e.hashes().length == 5);
            KvEventReader.Event full = sub.awaitEvent(e -> e.type().equals("BlockStored")
                    && Integer.valueOf(0).equals(e.group()) && e.hashes().length == 5);
            KvEventReader.Event mamba = sub.awaitEvent(e -> e.type().equals("BlockStored")
                    && Integer.valueOf(2).equals(e.group()) && e.tokenCount() == 80);
            assertThat(full.kind()).isEqualTo("full_attention");
            assertThat(window.kind()).isEqualTo("sliding_window");
            assertThat(window.hashes()).containsExactly(full.hashes());
            assertThat(mamba.kind()).isEqualTo("mamba");
            assertThat(mamba.hashes()).as("the state at the prompt's last block boundary").containsExactly(
                    full.hashes()[4]);
            assertThat(mamba.parent()).isNull();
        }
    }
}
