package dev.caravan.processors.request;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code checkApiKey}: when the gateway has an API key ({@code --api-key}), the request must carry
 * {@code Authorization: Bearer <key>}, else 401 {@code invalid_api_key}. Without a key every request passes. The
 * comparison takes constant time.
 */
public final class CheckApiKeyProcessor implements Processor {

    private final byte[] expected;

    /** @param apiKey the key, or null for an open gateway */
    public CheckApiKeyProcessor(String apiKey) {
        this.expected = apiKey == null ? null : ("Bearer " + apiKey).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void process(Exchange exchange) {
        if (expected == null) {
            return;
        }
        String given = exchange.getIn().getHeader("Authorization", String.class);
        if (given == null || !MessageDigest.isEqual(expected, given.trim().getBytes(StandardCharsets.UTF_8))) {
            throw GatewayError.UNAUTHORIZED.exception("missing or invalid API key (send Authorization: Bearer <key>)");
        }
    }
}
