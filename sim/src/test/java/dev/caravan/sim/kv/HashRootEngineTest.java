package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.caravan.sim.Http;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

import org.junit.jupiter.api.Test;

/**
 * vLLM's NONE_HASH root: random per engine process unless PYTHONHASHSEED (the simulator's hash seed) is set, so only
 * seeded engines publish the same block ids for the same prompt.
 */
class HashRootEngineTest {

    /** 35 synthetic tokens: two full blocks (the probes have one). */
    private static final String PROMPT = "The caravan crosses the desert at night, guided by the stars above it, "
            + "and reaches the oasis well before the heat of the next day comes.";

    private static long firstStoredBlock(SimConfig.Builder config) {
        try (SimEngine e = SimEngine.start(config.kvEventsEndpoint("tcp://127.0.0.1:*").timeScale(100).build());
             KvSubscriber sub = new KvSubscriber(e.kvEventsEndpoint())) {
            int[] n = {0};
            sub.join(() -> Http.post(e.url() + "/v1/completions", Map.of("prompt", "probe " + n[0]++ + " "
                    + "x".repeat(80), "max_tokens", 1)));
            Http.post(e.url() + "/v1/completions", Map.of("prompt", PROMPT, "max_tokens", 1));
            return sub.awaitEvent(ev -> ev.type().equals("BlockStored") && ev.parent() == null
                    && ev.tokenCount() == 32).hashes()[0];
        }
    }

    @Test
    void withoutIntHashesTheEventsCarryTheFullDigestsWhoseLow64BitsAreTheIds() {
        int before = KvEventReader.DIGEST_IDS.get();
        long asInt = firstStoredBlock(SimConfig.builder().hashSeed("42"));
        assertThat(KvEventReader.DIGEST_IDS.get()).isEqualTo(before);
        long fromBytes = firstStoredBlock(SimConfig.builder().hashSeed("42").kvEventsIntHashes(false));
        assertThat(KvEventReader.DIGEST_IDS.get()).isGreaterThan(before);
        assertThat(fromBytes).isEqualTo(asInt);
    }

    @Test
    void unseededEnginesHashTheSamePromptDifferentlySeededOnesAlike() {
        long a = firstStoredBlock(SimConfig.builder());
        long b = firstStoredBlock(SimConfig.builder());
        assertThat(a).as("random roots").isNotEqualTo(b);
        long c = firstStoredBlock(SimConfig.builder().hashSeed("42"));
        long d = firstStoredBlock(SimConfig.builder().hashSeed("42"));
        assertThat(c).as("PYTHONHASHSEED=42 on both").isEqualTo(d);
    }
}
