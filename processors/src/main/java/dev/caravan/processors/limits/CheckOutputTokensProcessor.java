package dev.caravan.processors.limits;

import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;

import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code checkOutputTokens}: a request that asks for more generated tokens than the gateway allows
 * ({@code --max-output-tokens}) ends with 400 {@code invalid_request} naming the field, the limit and the value, before
 * it takes an admission slot or reaches an engine. The fields are each API's own: {@code max_tokens} (completions,
 * chat), {@code max_completion_tokens} (chat), {@code max_output_tokens} (Responses) and
 * {@code sampling_params.max_new_tokens} (SGLang's {@code /generate}). A request that sets none of them passes (the
 * engine's own default applies), and so does a value that is not a number (the engine answers for its own API).
 *
 * <p>Reads {@code REQUEST_JSON}; writes nothing. Stateless and thread-safe.
 */
public final class CheckOutputTokensProcessor implements Processor {

    /** The limit that lets every request pass (the default). */
    public static final int NO_LIMIT = -1;

    /** The top-level fields that bound the generated tokens. */
    static final List<String> FIELDS = List.of("max_tokens", "max_completion_tokens", "max_output_tokens");

    private final int limit;

    /** @param limit the most generated tokens a request may ask for, or {@link #NO_LIMIT} */
    public CheckOutputTokensProcessor(int limit) {
        this.limit = limit;
    }

    @Override
    public void process(Exchange exchange) {
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        if (limit == NO_LIMIT || json == null) {
            return;
        }
        for (String field : FIELDS) {
            check(field, json.get(field));
        }
        if (json.get("sampling_params") instanceof Map<?, ?> sampling) {
            check("sampling_params.max_new_tokens", sampling.get("max_new_tokens"));
        }
    }

    private void check(String field, Object value) {
        if (value instanceof Number n && n.doubleValue() > limit) {
            throw GatewayError.INVALID_REQUEST.exception(field + " must be at most " + limit + " on this gateway, was "
                    + n);
        }
    }
}
