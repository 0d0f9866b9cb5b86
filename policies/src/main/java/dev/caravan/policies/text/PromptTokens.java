package dev.caravan.policies.text;

import java.util.Arrays;
import java.util.Objects;

/**
 * A request's prompt as the engine will see it: the token ids the engine computes (its chat template rendered with its
 * tokenizer, or its own {@code /tokenize} answer), and the keys besides the tokens that decide what a KV block holds.
 * Produced once per request by the gateway's {@code tokenizePrompt} step (docs/tokens.md) and handed to the policies
 * through {@code SelectionContext#prompt()}; {@code SelectionContext#tokens()} is then {@link #ids()}.
 *
 * <p>The ids array is shared, not copied: treat it as read-only.
 *
 * @param ids       the engine's prompt token ids (BOS included when the engine's prompt has it)
 * @param loraName  the LoRA adapter the request runs on (blocks of different adapters never match), or null for the
 *                  base model
 * @param cacheSalt the request's {@code cache_salt} (vLLM folds it into the first block's hash, isolating tenants), or
 *                  null
 * @param source    where the ids came from
 */
public record PromptTokens(int[] ids, String loraName, String cacheSalt, Source source) {

    /** Where the token ids came from. */
    public enum Source {
        /** The gateway rendered the model's chat template and tokenized with the model's tokenizer. */
        LOCAL,
        /** The engine's own {@code /tokenize} endpoint. */
        ENGINE,
        /** The request carried token ids itself ({@code prompt} as ids, {@code input_ids}). */
        REQUEST
    }

    public PromptTokens {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(source, "source");
        loraName = loraName == null || loraName.isEmpty() ? null : loraName;
        cacheSalt = cacheSalt == null || cacheSalt.isEmpty() ? null : cacheSalt;
    }

    /** Number of prompt tokens. */
    public int length() {
        return ids.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PromptTokens p && Arrays.equals(ids, p.ids) && Objects.equals(loraName, p.loraName)
                && Objects.equals(cacheSalt, p.cacheSalt) && source == p.source;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(ids), loraName, cacheSalt, source);
    }

    @Override
    public String toString() {
        return "PromptTokens[" + ids.length + " ids, lora=" + loraName + ", salt=" + (cacheSalt != null) + ", "
                + source + "]";
    }
}
