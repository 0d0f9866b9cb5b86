package dev.caravan.processors.tokens;

import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import dev.caravan.tokens.LocalModel;
import dev.caravan.tokens.ModelFiles;
import dev.caravan.tokens.TokenChunkCache;

/**
 * Every configured model's {@link LocalModel}, loaded once at start-up (a missing or broken file fails the gateway's
 * start with a message naming it) and looked up per request: the model's own entry, else the default
 * ({@link TokensConfig#DEFAULT_MODEL}) entry, else none. Models sharing the same files share one loaded model.
 * Their chat prompts' chunks share one {@link TokenChunkCache} of {@link TokensConfig#cacheBytes}. Thread-safe
 * (immutable after construction); {@link #close} frees the native tokenizers.
 */
public final class LocalPrompts implements AutoCloseable {

    private final Map<String, LocalModel> models;
    private final TokenChunkCache cache;

    /**
     * @throws IllegalArgumentException naming the model and file when one cannot be loaded
     */
    public LocalPrompts(TokensConfig config, Clock clock) {
        this.cache = new TokenChunkCache(config.cacheBytes());
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
        return m != null ? m : models.get(TokensConfig.DEFAULT_MODEL);
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
    }
}
