package dev.caravan.it.app;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.caravan.app.DemoMain;
import dev.caravan.it.GatewayClient;

/**
 * {@code ./caravan demo} and {@code ./caravan demo --pd} as the README runs them (on {@code --port 0} instead of
 * 30000), driven with the README's Quick start requests: each answer is checked exactly, and stopping the demo leaves
 * nothing listening.
 */
class DemoIT {

    private static final String MODEL = "meta-llama/Meta-Llama-3-8B-Instruct";
    /** The README's chat request, sent twice. */
    private static final String CHAT = "{\"model\":\"" + MODEL
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about caravans\"}]}";
    /** The README's streamed chat request. */
    private static final String STREAM = "{\"model\":\"" + MODEL
            + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final Duration STARTUP = Duration.ofSeconds(60);

    /** A demo running on its own thread, as {@code main} runs it. */
    private record Launched(DemoMain.Running running, CompletableFuture<Void> ended) {

        void stop() throws Exception {
            running.stop();
            ended.get(STARTUP.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static final List<Launched> LAUNCHED = new CopyOnWriteArrayList<>();

    private static Launched launch(String... args) throws Exception {
        CompletableFuture<DemoMain.Running> started = new CompletableFuture<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        String[] withMetrics = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
                java.util.stream.Stream.of("--prometheus-port", "0")).toArray(String[]::new);
        Thread t = new Thread(() -> {
            try {
                DemoMain.run(withMetrics, started::complete);
                ended.complete(null);
            } catch (Throwable e) {
                started.completeExceptionally(e);
                ended.completeExceptionally(e);
            }
        }, "caravan-demo");
        t.setDaemon(true);
        t.start();
        Launched l = new Launched(started.get(STARTUP.toSeconds(), TimeUnit.SECONDS), ended);
        LAUNCHED.add(l);
        return l;
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (Launched l : LAUNCHED) {
            if (!l.ended().isDone()) {
                l.stop();
            }
        }
    }

    /** Host and port of every address the demo listens on: gateway, engines, and the engines' KV-event sockets. */
    private static List<InetSocketAddress> listening(Launched demo, JsonNode workers) {
        List<InetSocketAddress> out = new ArrayList<>();
        out.add(address(demo.running().gatewayUrl()));
        demo.running().engineUrls().forEach(u -> out.add(address(u)));
        for (JsonNode w : workers) {
            for (String field : List.of("kv_events_endpoint", "kv_replay_endpoint")) {
                if (w.hasNonNull(field)) {
                    out.add(address(w.get(field).asText().replace("tcp://", "http://")));
                }
            }
            if (w.hasNonNull("bootstrap_port")) {
                out.add(new InetSocketAddress("127.0.0.1", w.get("bootstrap_port").asInt()));
            }
        }
        return out;
    }

    /** {@code caravan_policy_decisions_total{branch="cache_hit",policy="cache_aware"}}, 0 before the first hit. */
    private static double cacheHits(GatewayClient client) {
        String prefix = "caravan_policy_decisions_total{branch=\"cache_hit\",policy=\"cache_aware\"} ";
        return client.get("/metrics").body().lines().filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()))).sum();
    }

    private static InetSocketAddress address(String url) {
        URI u = URI.create(url);
        return new InetSocketAddress(u.getHost(), u.getPort());
    }

    private static void assertNothingListens(List<InetSocketAddress> addresses) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (InetSocketAddress a : addresses) {
                assertThatThrownBy(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(a, 1000);
                    }
                }).as("still listening: %s", a).isInstanceOf(ConnectException.class);
            }
        });
    }

    private static void assertListens(InetSocketAddress a) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(a, 1000);
        }
    }

    @Test
    void theReadmeQuickStartWorksAndStoppingLeavesNothingListening() throws Exception {
        Launched demo = launch("--port", "0");
        assertThat(demo.running().gatewayUrl()).matches("http://127\\.0\\.0\\.1:\\d+").doesNotEndWith(":0");
        GatewayClient client = new GatewayClient(demo.running().gatewayUrl());

        HttpResponse<String> first = client.postJson("/v1/chat/completions", CHAT);
        assertThat(first.statusCode()).isEqualTo(200);
        JsonNode completion = GatewayClient.parse(first.body());
        assertThat(completion.path("object").asText()).isEqualTo("chat.completion");
        assertThat(completion.path("choices").get(0).path("message").path("content").asText()).isNotBlank();
        assertThat(completion.path("usage").path("completion_tokens").asInt()).isEqualTo(16);
        String engine = first.headers().firstValue("X-Caravan-Worker").orElseThrow();
        assertThat(demo.running().engineUrls()).hasSize(4).contains(engine);

        assertThat(cacheHits(client)).isZero();
        // the README: "chat, twice: the second call lands on the same engine (X-Caravan-Decision: cache_aware:cache_hit)"
        HttpResponse<String> second = client.postJson("/v1/chat/completions", CHAT);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("X-Caravan-Decision")).hasValue("cache_aware:cache_hit");
        assertThat(second.headers().firstValue("X-Caravan-Worker")).hasValue(engine);
        assertThat(cacheHits(client)).isEqualTo(1.0);

        GatewayClient.Streamed s = client.stream("/v1/chat/completions", STREAM);
        assertThat(s.status()).isEqualTo(200);
        assertThat(s.header("content-type")).startsWith("text/event-stream");
        List<String> data = s.data();
        assertThat(data).last().isEqualTo("[DONE]");
        String streamed = data.subList(0, data.size() - 1).stream()
                .map(d -> GatewayClient.parse(d).path("choices").path(0).path("delta").path("content").asText(""))
                .reduce("", String::concat);
        assertThat(streamed).isNotBlank();

        HttpResponse<String> generate = client.postJson("/generate", "{\"text\":\"Once upon a time\"}");
        assertThat(generate.statusCode()).isEqualTo(200);
        assertThat(GatewayClient.parse(generate.body()).path("text").asText()).isNotBlank();

        HttpResponse<String> models = client.get("/v1/models");
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(GatewayClient.parse(models.body()).path("data").findValuesAsText("id")).containsExactly(MODEL);

        JsonNode workers = GatewayClient.parse(client.get("/workers").body()).path("workers");
        assertThat(workers.findValuesAsText("url")).containsExactlyInAnyOrderElementsOf(demo.running().engineUrls());

        List<InetSocketAddress> addresses = listening(demo, workers);
        // gateway, 4 engines, and each engine's KV-event PUB and replay sockets
        assertThat(addresses).hasSize(1 + 4 + 8);
        for (InetSocketAddress a : addresses) {
            assertListens(a);
        }
        demo.stop();
        assertNothingListens(addresses);
    }

    /**
     * {@code ./caravan demo --policy kv_aware}: the engines and the gateway tokenize with the demo model's
     * tokenizer.json, so a repeated chat lands where its blocks are (docs/simulator.md, "Demo model").
     */
    @Test
    void theKvAwareDemoRoutesARepeatedChatToTheEngineHoldingItsBlocks() throws Exception {
        Launched demo = launch("--policy", "kv_aware", "--port", "0");
        GatewayClient client = new GatewayClient(demo.running().gatewayUrl());
        String chat = "{\"model\":\"" + MODEL + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"Tell me about caravans crossing the desert at night, the oases on the way, and the stars they use "
                + "to find the road when the dunes have moved.\"}]}";
        // Until the gateway's subscriptions have caught up (ZeroMQ's slow joiner), a repeat may still miss and run on
        // another engine; every engine that ran it holds its blocks. Once the events are in, repeats hit a holder.
        java.util.Set<String> holders = new java.util.HashSet<>();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            HttpResponse<String> r = client.postJson("/v1/chat/completions", chat);
            assertThat(r.statusCode()).isEqualTo(200);
            String worker = r.headers().firstValue("X-Caravan-Worker").orElseThrow();
            boolean heldBefore = holders.contains(worker);
            holders.add(worker);
            assertThat(r.headers().firstValue("X-Caravan-Decision")).hasValue("kv_aware:kv_hit");
            assertThat(heldBefore).as("a hit on an engine that ran the chat before").isTrue();
            assertThat(GatewayClient.parse(r.body()).path("usage").path("prompt_tokens_details")
                    .path("cached_tokens").asInt()).isPositive();
        });
        demo.stop();
    }

    /**
     * {@code ./caravan demo --gateways 3}: three replicas over the same four engines, each registering every engine,
     * syncing by default (Hazelcast members on loopback, a static list): a prompt one replica routed goes to the same
     * engine through the other two, as a peer's decision ({@code cache_hit_peer}).
     */
    @Test
    void threeGatewaysServeTheSameEnginesAndAgreeThroughTheSync() throws Exception {
        Launched demo = launch("--gateways", "3", "--port", "0");
        List<String> gateways = demo.running().gatewayUrls();
        assertThat(gateways).hasSize(3).doesNotHaveDuplicates()
                .allSatisfy(g -> assertThat(g).matches("http://127\\.0\\.0\\.1:\\d+").doesNotEndWith(":0"));
        List<GatewayClient> clients = gateways.stream().map(GatewayClient::new).toList();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            JsonNode workers = GatewayClient.parse(clients.get(i).get("/workers").body()).path("workers");
            assertThat(workers.findValuesAsText("url"))
                    .containsExactlyInAnyOrderElementsOf(demo.running().engineUrls());
            int replica = i;
            await().atMost(STARTUP).until(() -> sample(clients.get(replica), "caravan_sync_members", "") == 3);
            addresses.add(address(gateways.get(i)));
        }
        HttpResponse<String> first = clients.get(0).postJson("/v1/chat/completions", CHAT);
        assertThat(first.statusCode()).isEqualTo(200);
        String engine = first.headers().firstValue("X-Caravan-Worker").orElseThrow();
        for (int i = 1; i < 3; i++) {
            int replica = i;
            await().atMost(Duration.ofSeconds(20)).until(() -> sample(clients.get(replica),
                    "caravan_sync_messages_received_total", "channel=\"decisions\"") >= 1);
            HttpResponse<String> again = clients.get(i).postJson("/v1/chat/completions", CHAT);
            assertThat(again.headers().firstValue("X-Caravan-Worker")).as("gateway %d", i).hasValue(engine);
            assertThat(again.headers().firstValue("X-Caravan-Decision")).as("gateway %d", i)
                    .hasValue("cache_aware:cache_hit_peer");
        }
        demo.running().engineUrls().forEach(u -> addresses.add(address(u)));
        demo.stop();
        assertNothingListens(addresses);
    }

    /** The sum of a metric's samples whose labels contain {@code labels} on a gateway's /metrics; NaN when absent. */
    private static double sample(GatewayClient client, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{([^}]*)\\})? (\\S+)$")
                .matcher(client.get("/metrics").body());
        double sum = Double.NaN;
        while (m.find()) {
            if ((m.group(1) == null ? "" : m.group(1)).contains(labels)) {
                sum = (Double.isNaN(sum) ? 0 : sum) + Double.parseDouble(m.group(2));
            }
        }
        return sum;
    }

    @Test
    void thePdDemoAnswersThroughAPrefillAndADecodeEngine() throws Exception {
        Launched demo = launch("--pd", "--port", "0");
        GatewayClient client = new GatewayClient(demo.running().gatewayUrl());
        JsonNode workers = GatewayClient.parse(client.get("/workers").body()).path("workers");
        List<String> prefill = new ArrayList<>();
        List<String> decode = new ArrayList<>();
        for (JsonNode w : workers) {
            (w.path("worker_type").asText().equals("prefill") ? prefill : decode).add(w.path("url").asText());
        }
        assertThat(prefill).hasSize(2);
        assertThat(decode).hasSize(2);

        HttpResponse<String> r = client.postJson("/v1/chat/completions", CHAT);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(GatewayClient.parse(r.body()).path("choices").get(0).path("message").path("content").asText())
                .isNotBlank();
        String pair = r.headers().firstValue("X-Caravan-Worker").orElseThrow();
        assertThat(pair).matches("prefill=(.+); decode=(.+)");
        String[] parts = pair.split("; ");
        assertThat(prefill).contains(parts[0].substring("prefill=".length()));
        assertThat(decode).contains(parts[1].substring("decode=".length()));

        List<InetSocketAddress> addresses = listening(demo, workers);
        // gateway, 4 engines, 2 KV bootstrap ports
        assertThat(addresses).hasSize(1 + 4 + 2);
        demo.stop();
        assertNothingListens(addresses);
    }
}
