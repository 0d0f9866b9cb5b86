package dev.caravan.processors.auth;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code checkAdminKey} on the admin API ({@code /workers*}, {@code /flush_cache}, {@code /get_loads}, the
 * legacy {@code /add_worker}, {@code /remove_worker}, {@code /list_workers}): with {@code --admin-api-key} the request must
 * carry {@code Authorization: Bearer <admin key>} — the client key does not open the admin API then; without it, the
 * client key ({@code --api-key}) guards it, as SGLang does; with neither the admin API is open. Wrong or missing key:
 * 401 {@code invalid_api_key}. Constant-time comparison ({@link BearerKey}).
 */
public final class CheckAdminKeyProcessor implements Processor {

    private final BearerKey key;

    /**
     * @param adminKey the admin key, or null
     * @param apiKey   the client key, used when there is no admin key; or null
     */
    public CheckAdminKeyProcessor(String adminKey, String apiKey) {
        String k = adminKey != null ? adminKey : apiKey;
        this.key = k == null ? null : new BearerKey(k);
    }

    @Override
    public void process(Exchange exchange) {
        if (key != null && !key.matches(exchange.getIn().getHeader("Authorization", String.class))) {
            throw GatewayError.UNAUTHORIZED.exception("missing or invalid admin API key (send Authorization: Bearer <key>)");
        }
    }
}
