package dev.caravan.processors.trace;

import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * OpenTelemetry tracing (--enable-trace, docs/observability.md).
 */
public final class TracingFeature implements Feature {

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag ENABLE_TRACE = ROWS.row("--enable-trace", "caravan.trace.enabled", SWITCH,
            Sections.OBSERVABILITY)
            .defaultValue(false)
            .describe("Export OpenTelemetry traces: one span per request with child spans for worker selection, each "
                    + "attempt and the P/D legs; W3C traceparent is sent to the engines.");
    public static final CaravanFlag OTLP_TRACES_ENDPOINT = ROWS.row("--otlp-traces-endpoint",
            "caravan.trace.otlp-endpoint", STRING, Sections.OBSERVABILITY)
            .defaultValue(GatewayConfig.DEFAULT_OTLP_TRACES_ENDPOINT)
            .describe("Where spans go: host:port or http://host:port (OTLP over gRPC, SGLang's form), or a URL "
                    + "ending in /v1/traces (OTLP over HTTP, protobuf).");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
