package dev.caravan.processors.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.policies.text.PromptTokens;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.tokens.TokensMetrics.Outcome;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.LocalModel;

/**
 * The {@code tokenizePrompt} step on the real Qwen3 and Mistral NeMo fixtures, and against a loopback engine whose
 * {@code /tokenize} answers {@code [7, 8, 9]} (mode {@code ok}), never answers ({@code hang}) or fails ({@code error}).
 */
class TokenizePromptProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();
    static final Path MODELS = Path.of("../models");
    /** Qwen3's ids for "Tell me about caravans" as one user message (vectors/prompt-tokens.json, single_user). */
    static final int[] QWEN_SINGLE_USER = {151644, 872, 198, 40451, 752, 911, 1803, 402, 596, 151645, 198, 151644,
        77091, 198};
    static final String SINGLE_USER = "{\"model\":\"qwen\",\"messages\":[{\"role\":\"user\","
            + "\"content\":\"Tell me about caravans\"}]}";

    static Vertx vertx;
    static HttpServer engine;
    static final AtomicReference<String> MODE = new AtomicReference<>("ok");
    static final AtomicReference<Map<String, Object>> RECEIVED = new AtomicReference<>();
    static final AtomicReference<int[]> ANSWER = new AtomicReference<>();
    static LocalPrompts local;
    static TokensConfig base;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
        vertx = Vertx.vertx();
        engine = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
            try {
                RECEIVED.set(new ObjectMapper().readValue(body.getBytes(), new TypeReference<>() {
                }));
            } catch (java.io.IOException e) {
                RECEIVED.set(Map.of("unparsable", body.toString()));
            }
            switch (MODE.get()) {
                case "ok" -> req.response().putHeader("Content-Type", "application/json")
                        .end("{\"count\":3,\"max_model_len\":4096,\"tokens\":[7,8,9],\"token_strs\":null}");
                case "error" -> req.response().setStatusCode(500).end("{\"error\":\"boom\"}");
                case "answer" -> req.response().end("{\"tokens\":" + java.util.Arrays.toString(ANSWER.get()) + "}");
                default -> { } // hang
            }
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        base = new TokensConfig(TokensConfig.Source.AUTO, EngineDialect.VLLM, Duration.ofSeconds(3), null,
                TokensConfig.models(List.of("qwen=" + MODELS.resolve("qwen3"), "nemo=" + MODELS.resolve("mistral_nemo"),
                        "tools=" + MODELS.resolve("mistral_nemo")), List.of(),
                        List.of("tools=" + MODELS.resolve("tool_chat_template.jinja"))),
                Map.of("qwen-sql-lora", "qwen"));
        local = new LocalPrompts(base, Clock.systemUTC());
    }

    @AfterAll
    static void stop() throws Exception {
        local.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static TokensConfig with(TokensConfig.Source source, EngineDialect dialect) {
        return with(source, dialect, base.engineTimeout());
    }

    static TokensConfig with(TokensConfig.Source source, EngineDialect dialect, Duration timeout) {
        return new TokensConfig(source, dialect, timeout, null, base.models(), base.loraAdapters());
    }

    static Exchange request(String kind, String json) throws Exception {
        Map<String, Object> body = new ObjectMapper().readValue(json, new TypeReference<>() {
        });
        Exchange e = CAMEL.exchange();
        CaravanExchangeProperties.REQUEST_KIND.set(e, kind);
        CaravanExchangeProperties.REQUEST_JSON.set(e, body);
        CaravanExchangeProperties.MODEL.set(e, (String) body.get("model"));
        return e;
    }

    /** Runs the step to completion; returns the prompt tokens it published (or null). */
    static PromptTokens run(TokenizePromptProcessor step, Exchange e) {
        AtomicReference<Boolean> done = new AtomicReference<>();
        step.process(e, done::set);
        await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
        return CaravanExchangeProperties.PROMPT_TOKENS.get(e);
    }

    static TokenizePromptProcessor step(TokensConfig config, TokensMetrics metrics) {
        EngineTokenizer client = config.source() == TokensConfig.Source.ENGINE
                ? new EngineTokenizer(vertx, m -> List.of(Worker.builder("http://127.0.0.1:" + engine.actualPort())
                        .build()), config.engine(), config.engineTimeout().toMillis()) : null;
        return new TokenizePromptProcessor(config, local, client, metrics, System::nanoTime);
    }

    @Test
    void givesAChatTheTokensItsEngineComputes() throws Exception {
        TokensMetrics metrics = new TokensMetrics(new SimpleMeterRegistry());
        PromptTokens p = run(step(base, metrics), request("chat", SINGLE_USER));
        assertThat(p.ids()).containsExactly(QWEN_SINGLE_USER);
        assertThat(p.source()).isEqualTo(PromptTokens.Source.LOCAL);
        assertThat(p.loraName()).isNull();
        assertThat(metrics.count(Outcome.LOCAL)).isEqualTo(1);
    }

    @Test
    void encodesACompletionPromptWithTheTokenizersSpecialTokens() throws Exception {
        PromptTokens p = run(step(base, new TokensMetrics(new SimpleMeterRegistry())),
                request("completions", "{\"model\":\"nemo\",\"prompt\":\"Tell me about caravans\"}"));
        // Mistral NeMo's BOS, then the text (vectors: mistral_nemo/prompt_0)
        assertThat(p.ids()).containsExactly(1, 69839, 1639, 2314, 2382, 1430, 1545);
    }

    @Test
    void givesAChatOneBosWhenTheTemplateEmitsTheOneTheTokenizerAdds() throws Exception {
        PromptTokens p = run(step(base, new TokensMetrics(new SimpleMeterRegistry())),
                request("chat", SINGLE_USER.replace("\"qwen\"", "\"nemo\"")));
        // <s>[INST]Tell me about caravans[/INST] (vectors: mistral_nemo/single_user)
        assertThat(p.ids()).containsExactly(1, 3, 69839, 1639, 2314, 2382, 1430, 1545, 4);
    }

    @Test
    void namesTheLoraAdapterAndCacheSaltAndUsesTheBaseModelsTokenizer() throws Exception {
        PromptTokens p = run(step(base, new TokensMetrics(new SimpleMeterRegistry())), request("chat",
                SINGLE_USER.replace("\"qwen\"", "\"qwen-sql-lora\"").replace("{\"model\"",
                        "{\"cache_salt\":\"tenant-7\",\"model\"")));
        assertThat(p.ids()).containsExactly(QWEN_SINGLE_USER);
        assertThat(p.loraName()).isEqualTo("qwen-sql-lora");
        assertThat(p.cacheSalt()).isEqualTo("tenant-7");
    }

    @Test
    void takesTokenIdsTheRequestCarries() throws Exception {
        PromptTokens p = run(step(base, new TokensMetrics(new SimpleMeterRegistry())),
                request("completions", "{\"model\":\"unknown\",\"prompt\":[5,6,7]}"));
        assertThat(p.ids()).containsExactly(5, 6, 7);
        assertThat(p.source()).isEqualTo(PromptTokens.Source.REQUEST);
    }

    @Test
    void givesNoTokensForAModelWithoutFilesOrABatchOfPrompts() throws Exception {
        TokensMetrics metrics = new TokensMetrics(new SimpleMeterRegistry());
        TokenizePromptProcessor step = step(base, metrics);
        assertThat(run(step, request("chat", SINGLE_USER.replace("\"qwen\"", "\"other\"")))).isNull();
        assertThat(run(step, request("completions", "{\"model\":\"qwen\",\"prompt\":[\"a\",\"b\"]}"))).isNull();
        assertThat(metrics.count(Outcome.NONE)).isEqualTo(2);
    }

    @Test
    void answers400WhenTheTemplateRefusesTheConversation() throws Exception {
        Exchange e = request("chat", "{\"model\":\"tools\",\"tools\":[{\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\"}}],\"messages\":[{\"role\":\"system\",\"content\":\"only a system turn\"}]}");
        run(step(base, new TokensMetrics(new SimpleMeterRegistry())), e);
        assertThat(e.getException()).isInstanceOf(GatewayException.class)
                .hasMessageContaining("tools need a first user message");
    }

    @Test
    void answers400WhenMistralNemosTemplateRefusesAToolCallId() throws Exception {
        Exchange e = request("chat", "{\"model\":\"nemo\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"},"
                + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                + "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}]}");
        run(step(base, new TokensMetrics(new SimpleMeterRegistry())), e);
        assertThat(e.getException()).isInstanceOf(GatewayException.class)
                .hasMessageContaining("Tool call IDs should be alphanumeric strings with length 9!");
    }

    @Test
    void offDoesNothing() throws Exception {
        assertThat(run(step(with(TokensConfig.Source.OFF, EngineDialect.VLLM),
                new TokensMetrics(new SimpleMeterRegistry())), request("chat", SINGLE_USER))).isNull();
    }

    @Test
    void asksTheEnginesTokenizeWithTheChatRequest() throws Exception {
        MODE.set("ok");
        TokensMetrics metrics = new TokensMetrics(new SimpleMeterRegistry());
        PromptTokens p = run(step(with(TokensConfig.Source.ENGINE, EngineDialect.VLLM), metrics),
                request("chat", SINGLE_USER.replace("{\"model\"", "{\"chat_template_kwargs\":{\"enable_thinking\":"
                        + "false},\"model\"")));
        assertThat(p.ids()).containsExactly(7, 8, 9);
        assertThat(p.source()).isEqualTo(PromptTokens.Source.ENGINE);
        assertThat(RECEIVED.get()).containsEntry("model", "qwen").containsEntry("add_special_tokens", false)
                .containsEntry("chat_template_kwargs", Map.of("enable_thinking", false)).containsKey("messages");
        assertThat(metrics.count(Outcome.ENGINE)).isEqualTo(1);
    }

    @Test
    void sendsSglangTheLocalRenderingAsItsPrompt() throws Exception {
        MODE.set("ok");
        RECEIVED.set(null);
        Exchange e = request("chat", SINGLE_USER);
        PromptTokens p = run(step(with(TokensConfig.Source.ENGINE, EngineDialect.SGLANG),
                new TokensMetrics(new SimpleMeterRegistry())), e);
        assertThat(p.source()).isEqualTo(PromptTokens.Source.ENGINE);
        assertThat(RECEIVED.get()).containsEntry("prompt", "<|im_start|>user\nTell me about caravans<|im_end|>\n"
                + "<|im_start|>assistant\n").containsEntry("add_special_tokens", false).doesNotContainKey("messages");
    }

    @Test
    void fallsBackToLocalTokensWhenTheEngineDoesNotAnswerInTime() throws Exception {
        MODE.set("hang");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PromptTokens p = run(step(with(TokensConfig.Source.ENGINE, EngineDialect.VLLM, Duration.ofMillis(200)),
                new TokensMetrics(registry)), request("chat", SINGLE_USER));
        assertThat(p.ids()).containsExactly(QWEN_SINGLE_USER);
        assertThat(p.source()).isEqualTo(PromptTokens.Source.LOCAL);
        assertThat(registry.get("caravan_prompt_tokens_engine_failures_total").tag("reason", "timeout").counter()
                .count()).isEqualTo(1);
    }

    @Test
    void givesNoTokensWhenTheEngineFailsAndTheModelHasNoFiles() throws Exception {
        MODE.set("error");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        assertThat(run(step(with(TokensConfig.Source.ENGINE, EngineDialect.VLLM), new TokensMetrics(registry)),
                request("chat", SINGLE_USER.replace("\"qwen\"", "\"other\"")))).isNull();
        assertThat(registry.get("caravan_prompt_tokens_engine_failures_total").tag("reason", "error").counter()
                .count()).isEqualTo(1);
    }

    /** {@code --tokens-source auto} under kv_aware: the engine for models without files, local for the others. */
    static TokenizePromptProcessor autoUnderKvAware(EngineDialect dialect, TokensMetrics metrics) {
        TokensConfig config = with(TokensConfig.Source.AUTO, dialect);
        EngineTokenizer client = new EngineTokenizer(vertx, m -> List.of(Worker.builder("http://127.0.0.1:"
                + engine.actualPort()).build()), dialect, config.engineTimeout().toMillis());
        return new TokenizePromptProcessor(config, local, client, metrics, System::nanoTime, null, true);
    }

    @Test
    void autoUnderKvAwareAsksTheEngineForAModelWithoutFilesAndTokenizesTheOthersHere() throws Exception {
        MODE.set("ok");
        RECEIVED.set(null);
        TokensMetrics metrics = new TokensMetrics(new SimpleMeterRegistry());
        TokenizePromptProcessor step = autoUnderKvAware(EngineDialect.VLLM, metrics);

        PromptTokens other = run(step, request("chat", SINGLE_USER.replace("\"qwen\"", "\"other\"")));
        assertThat(other.ids()).containsExactly(7, 8, 9);
        assertThat(other.source()).isEqualTo(PromptTokens.Source.ENGINE);
        assertThat(RECEIVED.get()).containsEntry("model", "other").containsKey("messages");

        RECEIVED.set(null);
        PromptTokens qwen = run(step, request("chat", SINGLE_USER));
        assertThat(qwen.ids()).containsExactly(QWEN_SINGLE_USER);
        assertThat(qwen.source()).isEqualTo(PromptTokens.Source.LOCAL);
        assertThat(RECEIVED.get()).isNull();
        assertThat(metrics.count(Outcome.ENGINE)).isEqualTo(1);
        assertThat(metrics.count(Outcome.LOCAL)).isEqualTo(1);
    }

    @Test
    void autoUnderKvAwareDoesNotAskSglangForAChatOfAModelWithoutFiles() throws Exception {
        MODE.set("ok");
        RECEIVED.set(null);
        TokensMetrics metrics = new TokensMetrics(new SimpleMeterRegistry());
        assertThat(run(autoUnderKvAware(EngineDialect.SGLANG, metrics),
                request("chat", SINGLE_USER.replace("\"qwen\"", "\"other\"")))).isNull();
        assertThat(RECEIVED.get()).isNull();
        assertThat(metrics.count(Outcome.NONE)).isEqualTo(1);
    }

    @Test
    void theChatTokensCheckReportsAModelWhoseWorkersTokenizeNothing() throws Exception {
        EngineTokenizer client = new EngineTokenizer(vertx, m -> List.of(), EngineDialect.VLLM, 3000);
        ChatTokensCheck check = new ChatTokensCheck(local, client, null, vertx, Duration.ofMillis(50), 3);
        String url = "http://127.0.0.1:" + engine.actualPort();
        MODE.set("ok");
        check.onWorkerAdded(Worker.builder(url + "/a").modelId("answers").build());
        await().atMost(Duration.ofSeconds(5)).until(() -> check.engineTokenized().contains("answers"));
        assertThat(RECEIVED.get()).containsEntry("model", "answers").containsKey("messages");

        MODE.set("error");
        check.onWorkerAdded(Worker.builder(url + "/b").modelId("fails").build());
        check.onWorkerAdded(Worker.builder(url + "/c").modelId("qwen").build()); // local files: nothing to ask
        await().atMost(Duration.ofSeconds(5)).until(() -> check.unmatched().containsKey("fails"));
        assertThat(check.unmatched()).containsOnlyKeys("fails");
        assertThat(check.unmatched().get("fails")).isEqualTo("no local model files (--model-path) and " + url
                + "/b/tokenize gave no tokens: " + url + "/b/tokenize answered 500: {\"error\":\"boom\"}");
        assertThat(check.engineTokenized()).containsExactly("answers");
        client.close();
    }

    @Test
    void theChatTokensCheckReportsEveryModelWithoutFilesWhenNoEngineCanTokenizeChat() {
        String why = TokensFeature.noEngineTokens(with(TokensConfig.Source.AUTO, EngineDialect.SGLANG), true);
        assertThat(why).isEqualTo("no local model files (--model-path) and SGLang's /tokenize takes no chat "
                + "messages (--tokens-engine sglang)");
        assertThat(TokensFeature.noEngineTokens(with(TokensConfig.Source.OFF, EngineDialect.VLLM), false))
                .isEqualTo("no local model files (--model-path) and --tokens-source off");
        assertThat(TokensFeature.noEngineTokens(with(TokensConfig.Source.AUTO, EngineDialect.VLLM), true)).isNull();
        ChatTokensCheck check = new ChatTokensCheck(local, null, why, vertx, Duration.ofMillis(50), 3);
        check.onWorkerAdded(Worker.builder("http://127.0.0.1:1").modelId("other").build());
        check.onWorkerAdded(Worker.builder("http://127.0.0.1:2").modelId("nemo").build());
        assertThat(check.unmatched()).isEqualTo(Map.of("other", why));
    }

    @Test
    void refusesToBuildTheEngineSourceWithoutItsClient() {
        assertThatThrownBy(() -> new TokenizePromptProcessor(with(TokensConfig.Source.ENGINE, EngineDialect.VLLM),
                local, null, new TokensMetrics(new SimpleMeterRegistry()), System::nanoTime))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tokens-source engine");
    }

    @Test
    void checksThatANewWorkersEngineTokenizesAsTheGatewayDoes() throws Exception {
        LocalModel qwen = local.model("qwen");
        int[] expected = qwen.encode(qwen.render(TokenizerCheck.PROBE), false);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EngineTokenizer client = new EngineTokenizer(vertx, m -> List.of(), EngineDialect.VLLM, 3000);
        TokenizerCheck check = new TokenizerCheck(local, client, vertx, registry, Duration.ofMillis(50), 3);
        Worker same = Worker.builder("http://127.0.0.1:" + engine.actualPort() + "/").modelId("qwen").build();
        MODE.set("answer");
        ANSWER.set(expected);
        check.onWorkerAdded(same);
        await().atMost(Duration.ofSeconds(5)).until(() -> check.agreement(same.url()) != null);
        assertThat(check.agreement(same.url())).isEqualTo(1.0);
        assertThat(RECEIVED.get()).containsEntry("model", "qwen").containsEntry("add_special_tokens", false);

        Worker other = Worker.builder("http://127.0.0.1:" + engine.actualPort() + "/other").modelId("qwen").build();
        ANSWER.set(java.util.Arrays.copyOf(expected, expected.length - 1));
        check.onWorkerAdded(other);
        await().atMost(Duration.ofSeconds(5)).until(() -> check.agreement(other.url()) != null);
        assertThat(check.agreement(other.url())).isEqualTo(0.0);
        assertThat(registry.get("caravan_prompt_tokens_engine_agreement").tag("worker", other.url()).gauge().value())
                .isEqualTo(0.0);
        check.onWorkerRemoved(other);
        assertThat(registry.find("caravan_prompt_tokens_engine_agreement").tag("worker", other.url()).gauge())
                .isNull();
        client.close();
    }

    @Test
    void computesLocalTokensOnTheGivenExecutor() throws Exception {
        java.util.concurrent.ExecutorService cpu = java.util.concurrent.Executors.newSingleThreadExecutor(
                r -> new Thread(r, "test-tokenize"));
        try {
            AtomicReference<String> thread = new AtomicReference<>();
            TokenizePromptProcessor step = new TokenizePromptProcessor(base, local, null,
                    new TokensMetrics(new SimpleMeterRegistry()), System::nanoTime, recording(cpu, thread));
            Exchange e = request("chat", SINGLE_USER);
            AtomicReference<Boolean> done = new AtomicReference<>();
            assertThat(step.process(e, done::set)).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
            assertThat(done.get()).isFalse();
            assertThat(thread.get()).isEqualTo("test-tokenize");
            assertThat(CaravanExchangeProperties.PROMPT_TOKENS.get(e).ids()).containsExactly(QWEN_SINGLE_USER);
        } finally {
            cpu.shutdownNow();
        }
    }

    @Test
    void rendersTheChatSglangsTokenizeTakesOnTheGivenExecutor() throws Exception {
        MODE.set("ok");
        RECEIVED.set(null);
        TokensConfig config = with(TokensConfig.Source.ENGINE, EngineDialect.SGLANG);
        java.util.concurrent.ExecutorService cpu = java.util.concurrent.Executors.newSingleThreadExecutor(
                r -> new Thread(r, "test-tokenize"));
        try {
            AtomicReference<String> thread = new AtomicReference<>();
            EngineTokenizer client = new EngineTokenizer(vertx, m -> List.of(Worker.builder("http://127.0.0.1:"
                    + engine.actualPort()).build()), config.engine(), config.engineTimeout().toMillis());
            TokenizePromptProcessor step = new TokenizePromptProcessor(config, local, client,
                    new TokensMetrics(new SimpleMeterRegistry()), System::nanoTime, recording(cpu, thread));
            Exchange e = request("chat", SINGLE_USER);
            AtomicReference<Boolean> done = new AtomicReference<>();
            assertThat(step.process(e, done::set)).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
            assertThat(thread.get()).isEqualTo("test-tokenize");
            assertThat(CaravanExchangeProperties.PROMPT_TOKENS.get(e).source()).isEqualTo(PromptTokens.Source.ENGINE);
            assertThat(RECEIVED.get()).containsEntry("prompt", "<|im_start|>user\nTell me about caravans<|im_end|>\n"
                    + "<|im_start|>assistant\n");
        } finally {
            cpu.shutdownNow();
        }
    }

    /** Runs each task on {@code cpu}, recording the name of the thread it ran on. */
    private static java.util.concurrent.Executor recording(java.util.concurrent.ExecutorService cpu,
                                                           AtomicReference<String> thread) {
        return r -> cpu.execute(() -> {
            thread.set(Thread.currentThread().getName());
            r.run();
        });
    }
}
