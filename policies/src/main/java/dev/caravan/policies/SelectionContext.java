package dev.caravan.policies;

import java.util.Locale;
import java.util.Map;

import dev.caravan.policies.text.PromptTokens;

/**
 * Everything a policy may look at to choose a worker. New inputs are added here, never to policy signatures.
 *
 * @param model       the request's model id (normalised; {@link Worker#UNKNOWN_MODEL_ID} when absent); selects the
 *                    per-model tree of tree-based policies
 * @param requestText the routing text (the whole conversation for chat, see docs/policies.md), or "" when none
 * @param tokens      token ids when the gateway has them (the precise KV policy, prefix_hash), else null; the
 *                    {@code prompt}'s ids when a prompt is given and no tokens are
 * @param headers     request headers with lower-cased names; empty values count as absent
 * @param prompt      the engine's own prompt tokens and the extra keys that change what a KV block holds (LoRA
 *                    adapter, {@code cache_salt}), when the gateway computed them (docs/tokens.md), else null
 * @param cacheScope  the model name and {@code cache_salt} the request sent, read from the request whether or not
 *                    {@code prompt} was computed (kv_aware's fallback for the extra keys), never null
 */
public record SelectionContext(String model, String requestText, int[] tokens, Map<String, String> headers,
                               PromptTokens prompt, CacheScope cacheScope) {

    /** Header naming an explicit routing key (manual, consistent_hashing). */
    public static final String ROUTING_KEY_HEADER = "x-smg-routing-key";
    /** Header naming a worker index into the candidate list (consistent_hashing). */
    public static final String TARGET_WORKER_HEADER = "x-smg-target-worker";

    public SelectionContext {
        model = Worker.normalizeModel(model);
        requestText = requestText == null ? "" : requestText;
        headers = headers == null ? Map.of() : headers;
        if (tokens == null && prompt != null) {
            tokens = prompt.ids();
        }
        cacheScope = cacheScope == null ? CacheScope.NONE : cacheScope;
    }

    /** A context without a cache scope read from the request. */
    public SelectionContext(String model, String requestText, int[] tokens, Map<String, String> headers,
                            PromptTokens prompt) {
        this(model, requestText, tokens, headers, prompt, CacheScope.NONE);
    }

    /** A context without the engine's prompt tokens. */
    public SelectionContext(String model, String requestText, int[] tokens, Map<String, String> headers) {
        this(model, requestText, tokens, headers, null, CacheScope.NONE);
    }

    /** A context with only routing text, for tests and the what-if replay. */
    public static SelectionContext ofText(String text) {
        return new SelectionContext(null, text, null, Map.of());
    }

    /** The header's value, or null when absent or empty. */
    public String header(String name) {
        String v = headers.get(name.toLowerCase(Locale.ROOT));
        return v == null || v.isEmpty() ? null : v;
    }
}
