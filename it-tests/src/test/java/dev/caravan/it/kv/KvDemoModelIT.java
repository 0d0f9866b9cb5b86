package dev.caravan.it.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.tokens.HfTokenizer;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * The demo's agreement through a real artifact: engines started with the demo model ({@code --tokenizer}: its
 * tokenizer.json and chat template) and a kv_aware gateway given the same tokenizer.json ({@code --kv-tokenizer}).
 * For a chat request with tools, the gateway's own code (its routing text, its DJL tokenizer, its block hasher)
 * computes exactly the token ids and block hashes the simulated engine renders, tokenizes, hashes and publishes with
 * its own code, so the gateway routes the chat to the engine holding it.
 */
class KvDemoModelIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    static Path dir;
    private static Path model;
    private static SimFleet fleet;
    private static GatewayHarness gateway;
    private static KvBlockIndex index;
    private static final List<String> ids = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        model = Files.createDirectories(dir.resolve("demo-model"));
        for (String f : List.of("tokenizer.json", "tokenizer_config.json")) {
            try (InputStream in = KvDemoModelIT.class.getClassLoader().getResourceAsStream("demo-model/" + f)) {
                Files.copy(in, model.resolve(f));
            }
        }
        fleet = SimFleet.start(2, KvFixtures.publishing(SimConfig.builder()).tokenizer(model).build());
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware")
                .with(KvFeature.KV_TOKENIZER, model.resolve("tokenizer.json").toString()));
        index = gateway.gateway().beans().kv().index();
        for (SimEngine e : fleet.engines()) {
            ids.add(KvFixtures.register(gateway.client(), e, e.config().model()));
        }
        for (int i = 0; i < ids.size(); i++) {
            KvFixtures.awaitIndexed(gateway, fleet.engine(i), ids.get(i), 2, WAIT);
        }
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (fleet != null) {
            fleet.close();
        }
    }

    private static Map<String, Object> chat(String model) {
        Map<String, Object> tool = Map.of("type", "function", "function", Map.of("name", "get_weather",
                "description", "Weather for a city", "parameters", Map.of("type", "object", "properties",
                        Map.of("city", Map.of("type", "string")), "required", List.of("city"))));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("messages", List.of(
                Map.of("role", "system", "content", "You plan caravan routes across the desert. Answer briefly."),
                Map.of("role", "user", "content", "Which oases lie between the coast and the mountains, and how many "
                        + "days does the crossing take with loaded camels in the hot season?")));
        body.put("tools", List.of(tool));
        body.put("max_tokens", 2);
        return body;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aChatRequestsBlocksComputedByTheGatewayAreTheOnesTheEngineStores() throws IOException {
        SimEngine holder = fleet.engine(1);
        String served = holder.config().model();
        Map<String, Object> body = chat(served);
        int[] gatewayTokens;
        try (HfTokenizer tokenizer = new HfTokenizer(model.resolve("tokenizer.json"))) {
            gatewayTokens = tokenizer.encode(ChatTemplate.render((List<?>) body.get("messages"),
                    (List<?>) body.get("tools")));
        }
        JsonNode engineTokens = GatewayClient.parse(new GatewayClient(holder.url()).postJson("/tokenize",
                GatewayClient.json(body)).body()).path("tokens");
        assertThat(engineTokens).hasSize(gatewayTokens.length);
        for (int i = 0; i < gatewayTokens.length; i++) {
            assertThat(engineTokens.get(i).asInt()).as("token %d", i).isEqualTo(gatewayTokens[i]);
        }
        long[] hashes = BlockKeys.keys(gatewayTokens, 16, BlockKeys.PLAIN_ROOT);
        assertThat(hashes.length).isGreaterThanOrEqualTo(3);

        HttpResponse<String> direct = new GatewayClient(holder.url()).postJson("/v1/chat/completions",
                GatewayClient.json(body));
        assertThat(direct.statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> index.longestPrefixes(hashes, 1, 1).matched(ids.get(1)) == hashes.length);

        HttpResponse<String> routed = gateway.client().postJson("/v1/chat/completions", GatewayClient.json(body));
        assertThat(routed.statusCode()).isEqualTo(200);
        assertThat(routed.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER)).hasValue(holder.url());
        assertThat(routed.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER)).hasValue("kv_aware:kv_hit");
        int cacheable = Math.min(hashes.length, (gatewayTokens.length - 1) / 16) * 16;
        assertThat(GatewayClient.parse(routed.body()).path("usage").path("prompt_tokens_details")
                .path("cached_tokens").asInt()).isEqualTo(cacheable);
    }
}
