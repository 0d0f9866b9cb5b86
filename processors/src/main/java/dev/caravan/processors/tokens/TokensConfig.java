package dev.caravan.processors.tokens;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import dev.caravan.tokens.ContentFormat;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.ModelFiles;
import dev.caravan.tokens.TokenChunkCache;

/**
 * The prompt-token settings ({@code --model-path}, {@code --tokenizer-path}, {@code --chat-template},
 * {@code --tokens-source}, {@code --tokens-engine}, {@code --tokens-engine-timeout-ms},
 * {@code --chat-template-content-format}, {@code --lora-adapters}, {@code --tokens-cache-bytes}; docs/tokens.md).
 *
 * <p>Per-model paths are given as {@code MODEL=PATH} entries, a bare {@code PATH} applying to every model without an
 * entry of its own (the {@link #DEFAULT_MODEL} key). An entry is a mapping when it has an {@code =} whose left side is
 * not an existing file (model ids may contain {@code /}, paths rarely contain {@code =}).
 *
 * @param source          where prompt tokens come from
 * @param engine          the engines' flavour (chat preprocessing, {@code /tokenize} API)
 * @param engineTimeout   longest wait for a worker's {@code /tokenize}
 * @param contentFormat   the content format forced on every template, or null to detect per template
 * @param models          model id (or {@link #DEFAULT_MODEL}) → its files
 * @param loraAdapters    adapter model name → base model id
 * @param cacheBytes      the chunk cache's bound ({@link TokenChunkCache}); 0 encodes every prompt whole
 */
public record TokensConfig(Source source, EngineDialect engine, Duration engineTimeout, ContentFormat contentFormat,
                           Map<String, ModelFiles> models, Map<String, String> loraAdapters, long cacheBytes) {

    /** Where the prompt tokens come from ({@code --tokens-source}). */
    public enum Source {
        /** Local for models with files, none for the others. */
        AUTO,
        /** The model's template and tokenizer in the gateway. */
        LOCAL,
        /** A worker's {@code /tokenize}, falling back to local. */
        ENGINE,
        /** No prompt tokens: policies tokenize the routing text, as before. */
        OFF;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Source parse(String v) {
            return valueOf(v.trim().toUpperCase(Locale.ROOT));
        }
    }

    /** The key of the files that apply to every model without an entry of its own. */
    public static final String DEFAULT_MODEL = "*";
    public static final Source DEFAULT_SOURCE = Source.AUTO;
    public static final EngineDialect DEFAULT_ENGINE = EngineDialect.VLLM;
    /** Default engine {@code /tokenize} timeout: a fraction of a prefill, enough for a local round trip. */
    public static final Duration DEFAULT_ENGINE_TIMEOUT = Duration.ofMillis(500);
    public static final String DEFAULT_CONTENT_FORMAT = "auto";
    /** Default bound of the chunk cache ({@link TokenChunkCache#DEFAULT_CAPACITY_BYTES}). */
    public static final long DEFAULT_CACHE_BYTES = TokenChunkCache.DEFAULT_CAPACITY_BYTES;

    public TokensConfig {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(engine, "engine");
        if (engineTimeout == null || engineTimeout.isNegative() || engineTimeout.isZero()) {
            throw new IllegalArgumentException("engineTimeout (--tokens-engine-timeout-ms) must be > 0, was "
                    + engineTimeout);
        }
        models = Map.copyOf(models);
        loraAdapters = Map.copyOf(loraAdapters);
        if (cacheBytes < 0) {
            throw new IllegalArgumentException("cacheBytes (--tokens-cache-bytes) must be >= 0, was " + cacheBytes);
        }
    }

    /** With the default chunk cache ({@link #DEFAULT_CACHE_BYTES}). */
    public TokensConfig(Source source, EngineDialect engine, Duration engineTimeout, ContentFormat contentFormat,
                        Map<String, ModelFiles> models, Map<String, String> loraAdapters) {
        this(source, engine, engineTimeout, contentFormat, models, loraAdapters, DEFAULT_CACHE_BYTES);
    }

    /** No local files, source off. */
    public static TokensConfig off() {
        return new TokensConfig(Source.OFF, DEFAULT_ENGINE, DEFAULT_ENGINE_TIMEOUT, null, Map.of(), Map.of());
    }

    /**
     * Builds the model table from the three per-model lists.
     *
     * @throws IllegalArgumentException naming the flag when an entry is malformed or a model has a chat template or
     *                                  tokenizer path but no model path or tokenizer
     */
    public static Map<String, ModelFiles> models(List<String> modelPaths, List<String> tokenizerPaths,
                                                 List<String> chatTemplates) {
        Map<String, String> model = entries("--model-path", modelPaths);
        Map<String, String> tokenizer = entries("--tokenizer-path", tokenizerPaths);
        Map<String, String> template = entries("--chat-template", chatTemplates);
        Set<String> names = new LinkedHashSet<>(model.keySet());
        names.addAll(tokenizer.keySet());
        names.addAll(template.keySet());
        Map<String, ModelFiles> out = new LinkedHashMap<>();
        for (String name : names) {
            String dir = pick(model, name);
            String tok = pick(tokenizer, name);
            if (dir == null && tok == null) {
                throw new IllegalArgumentException("--chat-template for model " + name + " needs a --model-path or "
                        + "--tokenizer-path for it");
            }
            String tpl = pick(template, name);
            out.put(name, new ModelFiles(name, dir == null ? null : Path.of(dir), tok == null ? null : Path.of(tok),
                    tpl == null ? null : Path.of(tpl)));
        }
        return out;
    }

    /** The model's own entry, else the default one. */
    private static String pick(Map<String, String> entries, String model) {
        return entries.containsKey(model) ? entries.get(model) : entries.get(DEFAULT_MODEL);
    }

    /** {@code MODEL=VALUE} or {@code VALUE} entries; duplicates are errors. */
    static Map<String, String> entries(String flag, List<String> values) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String raw : values) {
            String v = raw.trim();
            if (v.isEmpty()) {
                continue;
            }
            int eq = v.indexOf('=');
            String model = DEFAULT_MODEL;
            String value = v;
            if (eq > 0 && !Files.exists(Path.of(v))) {
                model = v.substring(0, eq).trim();
                value = v.substring(eq + 1).trim();
            }
            if (value.isEmpty() || model.isEmpty()) {
                throw new IllegalArgumentException(flag + " " + raw + ": expected PATH or MODEL=PATH");
            }
            if (out.put(model, value) != null) {
                throw new IllegalArgumentException(flag + " names " + (model.equals(DEFAULT_MODEL)
                        ? "more than one default path" : "model " + model + " twice"));
            }
        }
        return out;
    }

    /** {@code --lora-adapters ADAPTER=BASE} entries. */
    public static Map<String, String> loraAdapters(List<String> values) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String raw : values) {
            String v = raw.trim();
            int eq = v.indexOf('=');
            if (eq <= 0 || eq == v.length() - 1) {
                throw new IllegalArgumentException("--lora-adapters " + raw + ": expected ADAPTER=BASE_MODEL");
            }
            out.put(v.substring(0, eq).trim(), v.substring(eq + 1).trim());
        }
        return out;
    }
}
