package dev.caravan.processors.tokens;

import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.tokens.HubModelFiles;
import dev.caravan.tokens.LocalModel;
import dev.caravan.tokens.ModelFiles;
import dev.caravan.tokens.TokenChunkCache;

/**
 * Every configured model's {@link LocalModel}, loaded once at start-up (a missing or broken file fails the gateway's
 * start with a message naming it) and looked up per request: the model's own entry, else the default
 * ({@link TokensConfig#DEFAULT_MODEL}) entry, else none. Models sharing the same files share one loaded model.
 * Their chat prompts' chunks share one {@link TokenChunkCache} of {@link TokensConfig#cacheBytes}.
 *
 * <p>With {@link #downloadWith} ({@code --model-download}), a model without configured files whose name is a Hugging
 * Face model id has its files fetched from the Hub ({@link HubModelFiles}) the first time it is looked up, in the
 * background: it has no local tokens until they are loaded, then it has. A failed fetch is logged once (WARN) and not
 * retried. Thread-safe; {@link #close} frees the native tokenizers.
 */
public final class LocalPrompts implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalPrompts.class);

    private final Map<String, LocalModel> models;
    private final TokenChunkCache cache;
    private final TokensConfig config;
    private final Clock clock;
    private final Map<String, LocalModel> fetched = new ConcurrentHashMap<>();
    private final Set<String> fetching = ConcurrentHashMap.newKeySet();
    private volatile HubModelFiles hub;
    private volatile Executor io;

    /**
     * @throws IllegalArgumentException naming the model and file when one cannot be loaded
     */
    public LocalPrompts(TokensConfig config, Clock clock) {
        this.cache = new TokenChunkCache(config.cacheBytes());
        this.config = config;
        this.clock = clock;
        Map<ModelFiles, LocalModel> byFiles = new LinkedHashMap<>();
        Map<String, LocalModel> out = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, ModelFiles> e : config.models().entrySet()) {
                ModelFiles files = e.getValue();
                ModelFiles key = new ModelFiles("", files.modelPath(), files.tokenizer(), files.chatTemplate());
                LocalModel m = byFiles.get(key);
                if (m == null) {
                    m = LocalModel.load(files, config.contentFormat(), config.engine(), clock, cache);
                    byFiles.put(key, m);
                }
                out.put(e.getKey(), m);
            }
        } catch (IOException | RuntimeException e) {
            byFiles.values().forEach(LocalModel::close);
            throw new IllegalArgumentException("prompt tokens: " + e.getMessage(), e);
        }
        this.models = Map.copyOf(out);
    }

    /** The model's local tokenizer and template, or null when none is configured for it. */
    public LocalModel model(String model) {
        LocalModel m = model == null ? null : models.get(model);
        if (m == null) {
            m = models.get(TokensConfig.DEFAULT_MODEL);
        }
        if (m != null || model == null || hub == null) {
            return m;
        }
        m = fetched.get(model);
        if (m == null && HubModelFiles.isModelId(model) && fetching.add(model)) {
            io.execute(() -> fetch(model));
        }
        return m;
    }

    /**
     * Fetches the files of models without configured ones from {@code hub}, on {@code io} (blocking downloads and the
     * tokenizer's load), when they are first looked up.
     */
    public void downloadWith(HubModelFiles hub, Executor io) {
        this.io = io;
        this.hub = hub;
    }

    /** True when models without configured files may get files from the Hub. */
    public boolean downloads() {
        return hub != null;
    }

    private void fetch(String model) {
        try {
            ModelFiles files = hub.fetch(model);
            fetched.put(model, LocalModel.load(files, config.contentFormat(), config.engine(), clock, cache));
            LOG.info("Model {}: tokenizer files fetched from the Hugging Face Hub into {}; its prompts get local "
                    + "tokens from now on", model, files.modelPath());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Model {}: cannot fetch its tokenizer files from the Hugging Face Hub (--model-download): {}",
                    model, e.getMessage());
        }
    }

    /** The chunk cache every model's chat prompts share. */
    public TokenChunkCache cache() {
        return cache;
    }

    /** True when no model has local files. */
    public boolean isEmpty() {
        return models.isEmpty();
    }

    @Override
    public void close() {
        models.values().stream().distinct().forEach(LocalModel::close);
        fetched.values().forEach(LocalModel::close);
    }
}
