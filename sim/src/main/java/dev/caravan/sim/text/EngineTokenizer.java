package dev.caravan.sim.text;

/**
 * An engine's tokenizer. Thread-safe.
 */
public interface EngineTokenizer extends AutoCloseable {

    /**
     * Token ids of {@code text}.
     *
     * @param addSpecialTokens whether the tokenizer's post-processor adds its special tokens (a BOS...): vLLM does for
     *                         completions and SGLang's {@code /generate} text, not for a rendered chat template
     */
    int[] encode(String text, boolean addSpecialTokens);

    /** The text of one token id as it appears in a decoded output (empty for ids it cannot decode). */
    String decode(int tokenId);

    /** Shown as {@code tokenizer_path} by the engine's info endpoints. */
    String name();

    @Override
    default void close() {
    }
}
