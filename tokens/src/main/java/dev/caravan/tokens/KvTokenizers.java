package dev.caravan.tokens;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.caravan.policies.text.Tokenizer;
import dev.caravan.policies.text.TokenizerSource;

/**
 * The gateway's {@link TokenizerSource} for {@code --kv-tokenizer}: {@value TokenizerSource#PSEUDO} is the simulator's
 * pseudo-tokenizer, anything else the path of a HuggingFace {@code tokenizer.json} loaded through {@link HfTokenizer}.
 * One native tokenizer per path, shared by every model's {@code kv_aware} instance and closed with the gateway. Whether
 * encoding adds the tokenizer's special tokens is the gateway-wide {@code --kv-add-special-tokens} (default true, as
 * vLLM's {@code /v1/completions} tokenizes prompts).
 */
public final class KvTokenizers implements TokenizerSource, AutoCloseable {

    private final TokenizerSource builtIn = TokenizerSource.pseudoOnly();
    private final Map<Path, HfTokenizer> loaded = new ConcurrentHashMap<>();
    private final boolean addSpecialTokens;

    /** With {@link HfTokenizer#DEFAULT_ADD_SPECIAL_TOKENS}. */
    public KvTokenizers() {
        this(HfTokenizer.DEFAULT_ADD_SPECIAL_TOKENS);
    }

    /** @param addSpecialTokens whether {@code tokenizer.json} tokenizers add their special tokens (BOS...) */
    public KvTokenizers(boolean addSpecialTokens) {
        this.addSpecialTokens = addSpecialTokens;
    }

    /** Whether {@code tokenizer.json} tokenizers add their special tokens ({@code --kv-add-special-tokens}). */
    public boolean addSpecialTokens() {
        return addSpecialTokens;
    }

    /**
     * @throws IllegalArgumentException when the file cannot be read as a tokenizer; the message names the path
     */
    @Override
    public Tokenizer tokenizer(String source, int charsPerToken) {
        if (PSEUDO.equals(source)) {
            return builtIn.tokenizer(source, charsPerToken);
        }
        Path path = Path.of(source).toAbsolutePath().normalize();
        try {
            return loaded.computeIfAbsent(path, p -> {
                try {
                    return new HfTokenizer(p, addSpecialTokens);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw new IllegalArgumentException("--kv-tokenizer " + source + ": " + e.getCause().getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--kv-tokenizer " + source + " is not a tokenizer.json: " + e, e);
        }
    }

    @Override
    public void close() {
        loaded.values().forEach(HfTokenizer::close);
        loaded.clear();
    }
}
