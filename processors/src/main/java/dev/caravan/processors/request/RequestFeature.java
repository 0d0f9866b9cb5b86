package dev.caravan.processors.request;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.error.MapErrorProcessor;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;

/**
 * Reading a request: the API key check, parsing (request id, JSON nesting limit), the routing text, and the mapping of
 * errors to responses.
 */
public final class RequestFeature implements Feature {

    // ---- bean names (ingress.camel.yaml, errors.camel.yaml) ---------------------------------------------------------

    public static final String CHECK_API_KEY = "checkApiKey";
    public static final String PARSE_REQUEST = "parseRequest";
    public static final String EXTRACT_ROUTING_TEXT = "extractRoutingText";
    public static final String MAP_ERROR = "mapError";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag REQUEST_ID_HEADERS = ROWS.row("--request-id-headers", "caravan.request-id-headers",
            LIST, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_REQUEST_ID_HEADERS)
            .describe("Request headers whose value is taken as the request id (first present wins); otherwise one is "
                    + "generated. It is forwarded as X-Request-Id.");
    public static final CaravanFlag MAX_JSON_NESTING_DEPTH = ROWS.row("--max-json-nesting-depth",
            "caravan.max-json-nesting-depth", INT, Sections.SECURITY)
            .defaultValue(GatewayConfig.DEFAULT_MAX_JSON_NESTING_DEPTH).range(1, 100_000)
            .describe("Deepest JSON nesting accepted in a request body; deeper bodies get 400.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        w.bind(CHECK_API_KEY, new CheckApiKeyProcessor(config.apiKey()));
        w.bind(PARSE_REQUEST, new ParseRequestProcessor(config.getList(REQUEST_ID_HEADERS), ThreadLocalRandom::current,
                config.getInt(MAX_JSON_NESTING_DEPTH)));
        w.bind(EXTRACT_ROUTING_TEXT, new ExtractRoutingTextProcessor());
        w.bind(MAP_ERROR, new MapErrorProcessor());
    }
}
