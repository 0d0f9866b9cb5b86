package dev.caravan.policies.text;

/** Turns prompt text into token ids. Implementations are deterministic and thread-safe. */
public interface Tokenizer {

    int[] encode(String text);

    /** Short name for logs and metrics, e.g. {@code pseudo-4} or {@code hf:tokenizer.json}. */
    String name();
}
