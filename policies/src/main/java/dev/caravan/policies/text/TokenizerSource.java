package dev.caravan.policies.text;

/**
 * Resolves a tokenizer setting (the {@code kv-tokenizer} option) to a {@link Tokenizer}. The routing core knows only
 * the pseudo-tokenizer ({@link #pseudoOnly()}); the gateway supplies a source that also loads HuggingFace
 * {@code tokenizer.json} files (its {@code HfTokenizer} needs a native library the core must not depend on).
 * Implementations may cache: several per-model policy instances resolve the same setting.
 */
@FunctionalInterface
public interface TokenizerSource {

    /** The setting naming the {@link PseudoTokenizer}. */
    String PSEUDO = "pseudo";

    /**
     * @param source        {@value #PSEUDO} or a source the implementation understands (a file path)
     * @param charsPerToken the pseudo-tokenizer's code points per token
     * @throws IllegalArgumentException when the source cannot be resolved; the message names it
     */
    Tokenizer tokenizer(String source, int charsPerToken);

    /** Resolves {@value #PSEUDO} only; anything else is an error telling where HuggingFace tokenizers come from. */
    static TokenizerSource pseudoOnly() {
        return (source, charsPerToken) -> {
            if (PSEUDO.equals(source)) {
                return new PseudoTokenizer(charsPerToken);
            }
            throw new IllegalArgumentException("tokenizer '" + source + "': only '" + PSEUDO + "' is built in; a"
                    + " tokenizer.json path needs the gateway's tokenizer source (HfTokenizer)");
        };
    }
}
