package dev.caravan.processors.request;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * Reading a request: the API key check, parsing (request id, JSON nesting limit), the routing text, and the mapping of errors to responses.
 */
public final class RequestFeature implements Feature {

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
}
