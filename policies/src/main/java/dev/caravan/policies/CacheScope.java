package dev.caravan.policies;

/**
 * What, beside its tokens, decides which cached blocks a request may reuse: engines fold the LoRA adapter and the
 * request's {@code cache_salt} into their block hashes (vLLM's {@code extra_keys}), so a prompt under another adapter
 * or salt shares nothing with the same prompt under none. {@code kv_aware} folds the same two into its block keys.
 *
 * @param model     the model name exactly as the request sent it (vLLM serves a LoRA adapter under its own name; SGLang's
 *                  {@code lora_path} when given), or null; kv_aware treats it as an adapter only once an engine has
 *                  reported blocks under that {@code lora_name}
 * @param cacheSalt the request's {@code cache_salt}, or null
 */
public record CacheScope(String model, String cacheSalt) {

    /** No adapter, no salt. */
    public static final CacheScope NONE = new CacheScope(null, null);

    public CacheScope {
        model = model == null || model.isBlank() ? null : model;
        cacheSalt = cacheSalt == null || cacheSalt.isEmpty() ? null : cacheSalt;
    }
}
