package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;

import java.util.Map;

import org.apache.camel.Exchange;

import dev.caravan.policies.CacheScope;

/**
 * The request's {@link CacheScope}: its {@code cache_salt} (vLLM's and SGLang's request field) and the name it asked
 * for — SGLang's {@code lora_path} when given, else its {@code model}, under which vLLM serves a LoRA adapter. Reads
 * {@code REQUEST_JSON} and {@code MODEL}; values that are not strings count as absent.
 */
public final class CacheScopes {

    private CacheScopes() {
    }

    public static CacheScope of(Exchange exchange) {
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        String model = MODEL.get(exchange);
        String salt = null;
        if (json != null) {
            if (json.get("lora_path") instanceof String lora && !lora.isBlank()) {
                model = lora;
            }
            if (json.get("cache_salt") instanceof String s) {
                salt = s;
            }
        }
        return model == null && salt == null ? CacheScope.NONE : new CacheScope(model, salt);
    }
}
