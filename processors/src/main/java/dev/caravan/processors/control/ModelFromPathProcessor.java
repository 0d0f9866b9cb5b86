package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.MODEL;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.error.GatewayError;

/**
 * Control step {@code modelFromPath} ({@code GET /v1/models/{model}}, before the fan-out): the model id the path
 * names, as {@code MODEL}, for {@code retrieveModel}.
 *
 * <p>Model ids hold slashes ({@code meta-llama/Meta-Llama-3-8B-Instruct}), which clients send either as they are or
 * percent-encoded (the OpenAI SDKs send {@code %2F}), so the route matches the path's prefix and this step decodes
 * what follows it ({@code +} stays a plus, as in a path). Nothing after the prefix leaves {@code MODEL} unset; a
 * malformed percent-escape is 400 {@code invalid_request}.
 */
public final class ModelFromPathProcessor implements Processor {

    /** The path before the model id. */
    public static final String PREFIX = "/v1/models/";

    @Override
    public void process(Exchange exchange) {
        String path = exchange.getIn().getHeader(Exchange.HTTP_PATH, String.class);
        if (path == null || !path.startsWith(PREFIX) || path.length() == PREFIX.length()) {
            return;
        }
        String raw = path.substring(PREFIX.length());
        try {
            MODEL.set(exchange, URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw GatewayError.INVALID_REQUEST.exception("malformed percent-encoding in the model id '" + raw + "'");
        }
    }
}
