package dev.caravan.gateway;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.tokens.ContentFormat;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.processors.tokens.EngineTokenizer;
import dev.caravan.processors.tokens.LocalPrompts;
import dev.caravan.processors.tokens.TokenizePromptProcessor;
import dev.caravan.processors.tokens.TokenizerCheck;
import dev.caravan.processors.tokens.TokensConfig;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.processors.tokens.TokensMetrics;

/**
 * The engine's own prompt tokens (docs/tokens.md): the {@link TokensConfig} from the flag table, every configured
 * model's tokenizer and chat template loaded at construction (a bad path fails the start, naming it), the engine
 * {@code /tokenize} clients (the request path's when {@code --tokens-source engine}; the tokenizer check's when
 * local files exist), the tokenizer check on every new worker, and the {@code tokenizePrompt} step
 * ({@code ingress.camel.yaml}). {@link #close} frees the native tokenizers and the client.
 */
final class TokensBeans implements AutoCloseable {

    private final TokensConfig config;
    private final LocalPrompts local;
    /** The tokenizer check's wait for one answer, and its retries while an engine starts. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(5);
    static final Duration CHECK_FIRST_RETRY = Duration.ofSeconds(2);
    static final int CHECK_ATTEMPTS = 8;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private EngineTokenizer engine;
    private EngineTokenizer requestEngine;
    /** Local rendering and encoding, off the event loops: one thread per core (admission bounds the queue). */
    private ExecutorService cpu;

    TokensBeans(GatewayConfig gateway) {
        this.config = config(gateway);
        this.local = new LocalPrompts(config, Clock.systemDefaultZone());
    }

    /** The prompt-token settings from the flag table (values already checked against their rows). */
    static TokensConfig config(GatewayConfig c) {
        TokensConfig.Source source = TokensConfig.Source.parse(c.get(TokensFeature.TOKENS_SOURCE));
        var models = TokensConfig.models(c.getList(TokensFeature.MODEL_PATH), c.getList(TokensFeature.TOKENIZER_PATH),
                c.getList(TokensFeature.CHAT_TEMPLATE));
        if (source == TokensConfig.Source.LOCAL && models.isEmpty()) {
            throw new IllegalArgumentException("--tokens-source local needs a --model-path or --tokenizer-path");
        }
        return new TokensConfig(source, EngineDialect.parse(c.get(TokensFeature.TOKENS_ENGINE)),
                Duration.ofMillis(c.getLong(TokensFeature.TOKENS_ENGINE_TIMEOUT_MS)),
                ContentFormat.parse(c.get(TokensFeature.CHAT_TEMPLATE_CONTENT_FORMAT)), models,
                TokensConfig.loraAdapters(c.getList(TokensFeature.LORA_ADAPTERS)),
                c.getLong(TokensFeature.TOKENS_CACHE_BYTES));
    }

    /**
     * Adds {@code tokenizePrompt}; the engine source asks the workers of each model's pool. With local files, every
     * new worker's tokenizer is checked against them ({@link TokenizerCheck}).
     */
    void define(Vertx vertx, WorkerRegistry workers, PolicyRegistry policies, MeterRegistry meters,
                Map<String, Object> beans) {
        boolean on = config.source() != TokensConfig.Source.OFF;
        if (on && (config.source() == TokensConfig.Source.ENGINE || !local.isEmpty())) {
            engine = new EngineTokenizer(vertx, model -> policies.poolFor(model).workers(), config.engine(),
                    Math.max(config.engineTimeout().toMillis(), CHECK_TIMEOUT.toMillis()));
        }
        if (on && !local.isEmpty()) {
            cpu = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()), r -> {
                Thread t = new Thread(r, "caravan-tokenize-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        beans.put(BeanNames.TOKENIZE_PROMPT, new TokenizePromptProcessor(config, local,
                config.source() == TokensConfig.Source.ENGINE ? requestClient(vertx, policies) : null,
                new TokensMetrics(meters).bind(local.cache()), System::nanoTime, cpu));
        if (on && !local.isEmpty()) {
            workers.addListener(new TokenizerCheck(local, engine, vertx, meters, CHECK_FIRST_RETRY, CHECK_ATTEMPTS));
        }
    }

    /** The request path's client: bounded by {@code --tokens-engine-timeout-ms}. */
    private EngineTokenizer requestClient(Vertx vertx, PolicyRegistry policies) {
        requestEngine = new EngineTokenizer(vertx, model -> policies.poolFor(model).workers(), config.engine(),
                config.engineTimeout().toMillis());
        return requestEngine;
    }

    TokensConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (engine != null) {
            engine.close();
        }
        if (requestEngine != null) {
            requestEngine.close();
        }
        if (cpu != null) {
            cpu.shutdownNow();
        }
        local.close();
    }
}
