package dev.caravan.tokens;

import java.util.Map;

/**
 * The keys besides the token ids that decide which KV blocks a request can reuse, and the base model whose tokenizer
 * encodes it, read from the request:
 * <ul>
 *   <li>LoRA adapter: SGLang's {@code lora_path} field; with SGLang engines a {@code model} of the form
 *       {@code base:adapter}; a {@code model} named by {@code --lora-adapters ADAPTER=BASE} (vLLM serves adapters
 *       under their own model name). The tokenizer is the base model's.</li>
 *   <li>{@code cache_salt}: vLLM's per-request salt, mixed into the first block's hash so tenants never share
 *       blocks.</li>
 * </ul>
 *
 * @param baseModel the model whose tokenizer and template apply (the request's model unless it names an adapter)
 * @param loraName  the adapter, or null
 * @param cacheSalt the salt, or null
 */
public record PromptKeys(String baseModel, String loraName, String cacheSalt) {

    public static PromptKeys of(String model, Map<String, Object> body, Map<String, String> loraAdapters,
                                EngineDialect dialect) {
        String salt = body.get("cache_salt") instanceof String s && !s.isEmpty() ? s : null;
        if (body.get("lora_path") instanceof String lora && !lora.isEmpty()) {
            return new PromptKeys(model, lora, salt);
        }
        if (model != null && loraAdapters.containsKey(model)) {
            return new PromptKeys(loraAdapters.get(model), model, salt);
        }
        if (dialect == EngineDialect.SGLANG && model != null) {
            int colon = model.lastIndexOf(':');
            if (colon > 0 && colon < model.length() - 1) {
                return new PromptKeys(model.substring(0, colon), model.substring(colon + 1), salt);
            }
        }
        return new PromptKeys(model, null, salt);
    }
}
