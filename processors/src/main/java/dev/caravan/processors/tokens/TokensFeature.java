package dev.caravan.processors.tokens;

import static dev.caravan.processors.config.FlagType.BOOLEAN;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import dev.caravan.policies.PolicyName;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.pd.PdConfig;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.tokens.ContentFormat;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.HubModelFiles;

/**
 * The engine's own prompt tokens (docs/tokens.md). Wires the {@link TokensConfig} from the flag table, every configured
 * model's tokenizer and chat template (a bad path fails the start, naming it), the engine {@code /tokenize} clients
 * (the request path's when {@code --tokens-source engine}, or {@code auto} under kv_aware; the checks' when local files
 * exist or the engine source is on), the checks on every new worker, and the {@code tokenizePrompt} step
 * ({@code ingress.camel.yaml}).
 * {@link #close} frees the native tokenizers and the clients.
 */
public final class TokensFeature implements Feature {

    /** The request path's step (ingress.camel.yaml). */
    public static final String TOKENIZE_PROMPT = "tokenizePrompt";

    /** The tokenizer check's wait for one answer, and its retries while an engine starts. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(5);
    static final Duration CHECK_FIRST_RETRY = Duration.ofSeconds(2);
    static final int CHECK_ATTEMPTS = 8;

    private static final AtomicInteger THREADS = new AtomicInteger();

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
    public static final CaravanFlag MODEL_DOWNLOAD = ROWS.row("--model-download", "caravan.tokens.model-download",
            BOOLEAN, Sections.TOKENS)
            .defaultValue(false)
            .describe("Fetch the tokenizer files of a model without --model-path from the Hugging Face Hub by its "
                    + "served model name (an id such as org/name; HF_ENDPOINT, HF_TOKEN) when it is first seen, into "
                    + "DJL's cache directory.");
    public static final CaravanFlag TOKENS_SOURCE = ROWS.row("--tokens-source", "caravan.tokens.source",
            STRING, Sections.TOKENS)
            .defaultValue(TokensConfig.DEFAULT_SOURCE.wireName())
            .oneOf(Choices.of(Arrays.stream(TokensConfig.Source.values()).map(TokensConfig.Source::wireName)
                    .toList()))
            .describe("Where prompt tokens come from: 'local' (the model's template and tokenizer here), 'engine' "
                    + "(a worker's /tokenize, falling back to local), 'off', or 'auto' (local for models with a "
                    + "--model-path or --tokenizer-path; for the others a worker's /tokenize when kv_aware routes, "
                    + "else none).");
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

    private LocalPrompts local;
    private ChatTokensCheck chatTokens;
    private EngineTokenizer engine;
    private EngineTokenizer requestEngine;
    /** Local rendering and encoding, off the event loops: one thread per core (admission bounds the queue). */
    private ExecutorService cpu;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    /** The prompt-token settings from the flag table (values already checked against their rows). */
    public static TokensConfig config(GatewayConfig c) {
        TokensConfig.Source source = TokensConfig.Source.parse(c.get(TOKENS_SOURCE));
        var models = TokensConfig.models(c.getList(MODEL_PATH), c.getList(TOKENIZER_PATH), c.getList(CHAT_TEMPLATE));
        if (source == TokensConfig.Source.LOCAL && models.isEmpty()) {
            throw new IllegalArgumentException("--tokens-source local needs a --model-path or --tokenizer-path");
        }
        return new TokensConfig(source, EngineDialect.parse(c.get(TOKENS_ENGINE)),
                Duration.ofMillis(c.getLong(TOKENS_ENGINE_TIMEOUT_MS)),
                ContentFormat.parse(c.get(CHAT_TEMPLATE_CONTENT_FORMAT)), models,
                TokensConfig.loraAdapters(c.getList(LORA_ADAPTERS)), c.getLong(TOKENS_CACHE_BYTES));
    }

    /**
     * True when kv_aware routes one of the gateway's pools (the regular one, or a P/D pool by
     * {@code --prefill-policy} / {@code --decode-policy}): it then needs every model's engine tokens.
     */
    public static boolean kvAwareRoutes(GatewayConfig c) {
        PdConfig pd = PdFeature.pdConfig(c);
        return isKvAware(c.policyName())
                || pd.enabled() && (isKvAware(pd.prefillPolicyOr(c.policyName()))
                || isKvAware(pd.decodePolicyOr(c.policyName())));
    }

    private static boolean isKvAware(String policy) {
        return PolicyName.resolve(policy) == PolicyName.KV_AWARE;
    }

    /**
     * Why a model without local files gets no engine tokens under this configuration, or null when it does: the
     * engine source is off or local, or the engines are SGLang, whose {@code /tokenize} takes no chat messages.
     */
    static String noEngineTokens(TokensConfig config, boolean engineWithoutFiles) {
        if (config.source() == TokensConfig.Source.OFF || config.source() == TokensConfig.Source.LOCAL) {
            return "no local model files (--model-path) and --tokens-source " + config.source().wireName();
        }
        if (config.engine() == EngineDialect.SGLANG) {
            return "no local model files (--model-path) and SGLang's /tokenize takes no chat messages "
                    + "(--tokens-engine sglang)";
        }
        return config.source() == TokensConfig.Source.ENGINE || engineWithoutFiles ? null
                : "no local model files (--model-path)";
    }

    /**
     * Binds {@code tokenizePrompt}; the engine source asks the workers of each model's pool ({@code engine}, or
     * {@code auto} for models without local files when kv_aware routes). With local files, every new worker's
     * tokenizer is checked against them ({@link TokenizerCheck}); under kv_aware, whether each new model's chat
     * requests get the engine's tokens at all ({@link ChatTokensCheck}, shared for the readiness check).
     */
    @Override
    public void wire(Wiring w) {
        TokensConfig config = config(w.config());
        local = new LocalPrompts(config, Clock.systemDefaultZone());
        boolean download = w.config().getBoolean(MODEL_DOWNLOAD);
        PolicyRegistry policies = w.get(Wiring.POLICY_REGISTRY, PolicyRegistry.class);
        boolean on = config.source() != TokensConfig.Source.OFF;
        boolean kvAware = kvAwareRoutes(w.config());
        boolean engineWithoutFiles = config.source() == TokensConfig.Source.AUTO && kvAware;
        boolean engineSource = config.source() == TokensConfig.Source.ENGINE || engineWithoutFiles;
        if (on && (engineSource || !local.isEmpty())) {
            engine = new EngineTokenizer(w.vertx(), model -> policies.poolFor(model).workers(), config.engine(),
                    Math.max(config.engineTimeout().toMillis(), CHECK_TIMEOUT.toMillis()));
        }
        if (on && (!local.isEmpty() || download)) {
            cpu = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()), r -> {
                Thread t = new Thread(r, "caravan-tokenize-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        if (engineSource) { // the request path's client, bounded by its own timeout
            requestEngine = new EngineTokenizer(w.vertx(), model -> policies.poolFor(model).workers(),
                    config.engine(), config.engineTimeout().toMillis());
        }
        w.bind(TOKENIZE_PROMPT, new TokenizePromptProcessor(config, local, requestEngine,
                new TokensMetrics(w.meters()).bind(local.cache()), System::nanoTime, cpu, engineWithoutFiles));
        String noEngine = kvAware ? noEngineTokens(config, engineWithoutFiles) : "kv_aware does not route";
        chatTokens = new ChatTokensCheck(local, noEngine == null ? engine : null, noEngine, w.vertx(),
                CHECK_FIRST_RETRY, CHECK_ATTEMPTS);
        w.share(ChatTokensCheck.class, chatTokens);
        if (kvAware) {
            w.workers().addListener(chatTokens);
        }
        if (on && download) {
            local.downloadWith(HubModelFiles.fromEnvironment(System.getenv()), cpu);
        }
        if (on && !local.isEmpty()) {
            w.workers().addListener(new TokenizerCheck(local, engine, w.vertx(), w.meters(), CHECK_FIRST_RETRY,
                    CHECK_ATTEMPTS));
        }
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
        if (local != null) {
            local.close();
        }
    }
}
