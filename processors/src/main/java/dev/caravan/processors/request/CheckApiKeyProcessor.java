package dev.caravan.processors.request;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.auth.BearerKey;
import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code checkApiKey}: when the gateway has an API key ({@code --api-key}), the request must carry
 * {@code Authorization: Bearer <key>}, else 401 {@code invalid_api_key}. Without a key every request passes. The
 * comparison takes constant time ({@link BearerKey}); the admin API has its own step ({@code checkAdminKey}).
 */
public final class CheckApiKeyProcessor implements Processor {

    private final BearerKey expected;

    /** @param apiKey the key, or null for an open gateway */
    public CheckApiKeyProcessor(String apiKey) {
        this.expected = apiKey == null ? null : new BearerKey(apiKey);
    }

    @Override
    public void process(Exchange exchange) {
        if (expected == null) {
            return;
        }
        if (!expected.matches(exchange.getIn().getHeader("Authorization", String.class))) {
            throw GatewayError.UNAUTHORIZED.exception("missing or invalid API key (send Authorization: Bearer <key>)");
        }
    }
}
