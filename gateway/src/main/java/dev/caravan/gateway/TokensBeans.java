package dev.caravan.gateway;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.tokens.ContentFormat;
import dev.caravan.processors.tokens.EngineDialect;
import dev.caravan.processors.tokens.EngineTokenizer;
import dev.caravan.processors.tokens.LocalPrompts;
import dev.caravan.processors.tokens.TokenizePromptProcessor;
import dev.caravan.processors.tokens.TokensConfig;
import dev.caravan.processors.tokens.TokensMetrics;

/**
 * The engine's own prompt tokens (docs/tokens.md): the {@link TokensConfig} from the flag table, every configured
 * model's tokenizer and chat template loaded at construction (a bad path fails the start, naming it), the engine
 * {@code /tokenize} client when {@code --tokens-source engine}, and the {@code tokenizePrompt} step
 * ({@code ingress.camel.yaml}). {@link #close} frees the native tokenizers and the client.
 */
final class TokensBeans implements AutoCloseable {

    private final TokensConfig config;
    private final LocalPrompts local;
    private EngineTokenizer engine;

    TokensBeans(GatewayConfig gateway) {
        this.config = config(gateway);
        this.local = new LocalPrompts(config, Clock.systemDefaultZone());
    }

    /** The prompt-token settings from the flag table (values already checked against their rows). */
    static TokensConfig config(GatewayConfig c) {
        TokensConfig.Source source = TokensConfig.Source.parse(c.get(CaravanFlags.TOKENS_SOURCE));
        var models = TokensConfig.models(c.getList(CaravanFlags.MODEL_PATH), c.getList(CaravanFlags.TOKENIZER_PATH),
                c.getList(CaravanFlags.CHAT_TEMPLATE));
        if (source == TokensConfig.Source.LOCAL && models.isEmpty()) {
            throw new IllegalArgumentException("--tokens-source local needs a --model-path or --tokenizer-path");
        }
        return new TokensConfig(source, EngineDialect.parse(c.get(CaravanFlags.TOKENS_ENGINE)),
                Duration.ofMillis(c.getLong(CaravanFlags.TOKENS_ENGINE_TIMEOUT_MS)),
                ContentFormat.parse(c.get(CaravanFlags.CHAT_TEMPLATE_CONTENT_FORMAT)), models,
                TokensConfig.loraAdapters(c.getList(CaravanFlags.LORA_ADAPTERS)));
    }

    /** Adds {@code tokenizePrompt}; the engine source asks the workers of each model's pool. */
    void define(Vertx vertx, PolicyRegistry policies, MeterRegistry meters, Map<String, Object> beans) {
        if (config.source() == TokensConfig.Source.ENGINE) {
            engine = new EngineTokenizer(vertx, model -> policies.poolFor(model).workers(), config.engine(),
                    config.engineTimeout().toMillis());
        }
        beans.put(BeanNames.TOKENIZE_PROMPT, new TokenizePromptProcessor(config, local, engine,
                new TokensMetrics(meters), System::nanoTime));
    }

    TokensConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (engine != null) {
            engine.close();
        }
        local.close();
    }
}
