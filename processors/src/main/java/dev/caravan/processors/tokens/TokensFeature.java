package dev.caravan.processors.tokens;

import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.util.Arrays;
import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * The engine's own prompt tokens (docs/tokens.md).
 */
public final class TokensFeature implements Feature {

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag MODEL_PATH = ROWS.row("--model-path", "caravan.tokens.model-path",
            LIST, Sections.TOKENS)
            .describe("Local Hugging Face model directory (tokenizer.json, tokenizer_config.json, optional "
                    + "chat_template.jinja) whose chat template and tokenizer give the engine's own prompt tokens; "
                    + "MODEL=DIR per served model, a bare DIR for every other model.");
    public static final CaravanFlag TOKENIZER_PATH = ROWS.row("--tokenizer-path", "caravan.tokens.tokenizer-path", LIST,
            Sections.TOKENS)
            .describe("Tokenizer directory or tokenizer.json when it is not the model directory's (SGLang's "
                    + "--tokenizer-path); MODEL=PATH per model, a bare PATH for every other model.");
    public static final CaravanFlag CHAT_TEMPLATE = ROWS.row("--chat-template", "caravan.tokens.chat-template", LIST,
            Sections.TOKENS)
            .describe("Jinja file overriding the model's chat template, as the engine's --chat-template; "
                    + "MODEL=FILE per model, a bare FILE for every other model.");
    public static final CaravanFlag CHAT_TEMPLATE_CONTENT_FORMAT = ROWS.row("--chat-template-content-format",
            "caravan.tokens.chat-template-content-format", STRING, Sections.TOKENS)
            .defaultValue(TokensConfig.DEFAULT_CONTENT_FORMAT).oneOf(Choices.of("auto", "string", "openai"))
            .describe("Message content given to chat templates as one string or as OpenAI parts; 'auto' detects it "
                    + "from the template as vLLM does (vLLM's flag of the same name).");
    public static final CaravanFlag TOKENS_SOURCE = ROWS.row("--tokens-source", "caravan.tokens.source",
            STRING, Sections.TOKENS)
            .defaultValue(TokensConfig.DEFAULT_SOURCE.wireName())
            .oneOf(Choices.of(Arrays.stream(TokensConfig.Source.values()).map(TokensConfig.Source::wireName)
                    .toList()))
            .describe("Where prompt tokens come from: 'local' (the model's template and tokenizer here), 'engine' "
                    + "(a worker's /tokenize, falling back to local), 'off', or 'auto' (local for models with a "
                    + "--model-path or --tokenizer-path, else off).");
    public static final CaravanFlag TOKENS_ENGINE = ROWS.row("--tokens-engine", "caravan.tokens.engine",
            STRING, Sections.TOKENS)
            .defaultValue(TokensConfig.DEFAULT_ENGINE.wireName())
            .oneOf(Choices.of(Arrays.stream(dev.caravan.tokens.EngineDialect.values())
                    .map(dev.caravan.tokens.EngineDialect::wireName).toList()))
            .describe("The engines behind the gateway, 'vllm' or 'sglang': whose chat preprocessing the local "
                    + "rendering reproduces and whose /tokenize API the engine source calls.");
    public static final CaravanFlag TOKENS_ENGINE_TIMEOUT_MS = ROWS.row("--tokens-engine-timeout-ms",
            "caravan.tokens.engine-timeout-ms", LONG, Sections.TOKENS)
            .defaultValue(TokensConfig.DEFAULT_ENGINE_TIMEOUT.toMillis()).range(1, FlagRows.MAX_MILLIS)
            .describe("Longest wait for a worker's /tokenize before the request is routed on local tokens (or "
                    + "none), in milliseconds.");
    public static final CaravanFlag TOKENS_CACHE_BYTES = ROWS.row("--tokens-cache-bytes", "caravan.tokens.cache-bytes",
            LONG, Sections.TOKENS)
            .defaultValue(TokensConfig.DEFAULT_CACHE_BYTES).min(0)
            .describe("Bound, in estimated heap bytes, of the cache of chat prompt chunks' token ids (system "
                    + "prompts and earlier turns are not encoded again; least recently used first out); 0: encode "
                    + "every prompt whole.");
    public static final CaravanFlag LORA_ADAPTERS = ROWS.row("--lora-adapters", "caravan.tokens.lora-adapters", LIST,
            Sections.TOKENS)
            .describe("LoRA adapters served under their own model name, as ADAPTER=BASE_MODEL: requests naming "
                    + "ADAPTER carry it as their LoRA key and are tokenized with BASE_MODEL's tokenizer.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
