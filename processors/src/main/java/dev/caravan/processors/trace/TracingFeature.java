package dev.caravan.processors.trace;

import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.pd.Leg;
import dev.caravan.processors.pd.LegResult;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.pd.PdPair;
import dev.caravan.processors.reliability.RetryState;
import dev.caravan.processors.routing.RoutingFeature;

/**
 * OpenTelemetry tracing ({@code --enable-trace}, docs/observability.md): the SDK exporting over OTLP to
 * {@code --otlp-traces-endpoint}, the {@code traceRequest} step, and the step spans: {@code select_worker} and
 * {@code attempt} (each attempt's call to its worker) on the regular pool; {@code select_pd_pair}, {@code prefill_leg}
 * and {@code decode_leg} in P/D mode. Wired last: it wraps the steps the features before it bound
 * ({@link TracedProcessor}); the routes do not change.
 *
 * <p>The endpoint: {@code host:port} or {@code http://host:port} is OTLP over gRPC (SGLang's default
 * {@code localhost:4317}); a URL ending in {@code /v1/traces} is OTLP over HTTP with protobuf. The SDK and the exporter
 * are optional dependencies of the gateway (caravan-app ships them): an embedding application that traces adds
 * {@code io.opentelemetry:opentelemetry-sdk} and {@code opentelemetry-exporter-otlp}.
 */
public final class TracingFeature implements Feature {

    private static final Logger LOG = LoggerFactory.getLogger(TracingFeature.class);

    // ---- bean names (ingress.camel.yaml) ----------------------------------------------------------------------------

    public static final String TRACE_REQUEST = "traceRequest";

    /** Spans are exported in batches at most this long after they end. */
    static final Duration EXPORT_DELAY = Duration.ofSeconds(1);

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

    private RequestTracing tracing = RequestTracing.DISABLED;

    /**
     * Binds {@code traceRequest} (a no-op without tracing) and, with {@code --enable-trace}, wraps the traced steps.
     *
     * @throws IllegalStateException with {@code --enable-trace} when the SDK or the exporter is not on the class path
     */
    @Override
    public void wire(Wiring w) {
        tracing = tracing(w.config());
        w.bind(TRACE_REQUEST, new TraceRequestProcessor(tracing));
        if (!tracing.enabled()) {
            return;
        }
        wrap(w, RoutingFeature.SELECT_WORKER, "select_worker", SpanKind.INTERNAL, (s, e) -> { },
                TracingFeature::decision);
        wrap(w, ForwardFeature.FORWARD_STREAM, "attempt", SpanKind.CLIENT, TracingFeature::attemptStarts,
                TracingFeature::attemptEnds);
        wrap(w, PdFeature.SELECT_PD_PAIR, "select_pd_pair", SpanKind.INTERNAL, (s, e) -> { }, TracingFeature::pair);
        wrap(w, PdFeature.CALL_PREFILL, "prefill_leg", SpanKind.CLIENT, leg(Leg.PREFILL), TracingFeature::legEnds);
        wrap(w, PdFeature.CALL_DECODE, "decode_leg", SpanKind.CLIENT, leg(Leg.DECODE), TracingFeature::legEnds);
    }

    /** Exports the last spans. */
    @Override
    public void close() {
        tracing.close();
    }

    /** The tracing the configuration asks for. */
    static RequestTracing tracing(GatewayConfig config) {
        if (!config.getBoolean(ENABLE_TRACE)) {
            return RequestTracing.DISABLED;
        }
        String endpoint = config.get(OTLP_TRACES_ENDPOINT);
        try {
            return Sdk.create(endpoint);
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("--enable-trace needs io.opentelemetry:opentelemetry-sdk and "
                    + "opentelemetry-exporter-otlp on the class path (caravan-app ships them): " + e.getMessage(), e);
        }
    }

    /** The OTLP endpoint as the exporter wants it, and whether it is the HTTP one. */
    static String[] endpoint(String value) {
        String v = value.trim();
        if (v.endsWith("/v1/traces")) {
            return new String[] {v, "http"};
        }
        return new String[] {v.contains("://") ? v : "http://" + v, "grpc"};
    }

    private void wrap(Wiring w, String bean, String span, SpanKind kind, BiConsumer<Span, Exchange> before,
                      BiConsumer<Span, Exchange> after) {
        w.wrap(bean, Processor.class, p -> new TracedProcessor(tracing, span, kind, p, before, after));
    }

    private static void decision(Span span, Exchange exchange) {
        Decision d = DECISION.get(exchange);
        if (d != null) {
            span.setAttribute("caravan.policy", d.policy());
            span.setAttribute("caravan.branch", d.branch());
        }
        Worker w = WORKER.get(exchange);
        if (w != null) {
            span.setAttribute("caravan.worker", w.url());
        }
        String model = MODEL.get(exchange);
        if (model != null) {
            span.setAttribute("caravan.model", model);
        }
    }

    private static void attemptStarts(Span span, Exchange exchange) {
        Worker w = WORKER.get(exchange);
        if (w != null) {
            span.setAttribute("caravan.worker", w.url());
            span.setAttribute("server.address", w.host());
            span.setAttribute("server.port", (long) w.port());
        }
        RetryState state = RetryState.of(exchange);
        if (state != null) {
            span.setAttribute("caravan.attempt", (long) state.attempts());
        }
    }

    private static void attemptEnds(Span span, Exchange exchange) {
        Integer status = RESPONSE_STATUS.get(exchange);
        if (status != null) {
            span.setAttribute("http.response.status_code", (long) status);
        }
        String outcome = OUTCOME.get(exchange);
        if (outcome != null) {
            span.setAttribute("caravan.outcome", outcome);
        }
    }

    private static void pair(Span span, Exchange exchange) {
        PdPair pair = PdPair.PROPERTY.get(exchange);
        if (pair != null) {
            span.setAttribute("caravan.prefill.worker", pair.prefill().worker().url());
            span.setAttribute("caravan.prefill.decision", pair.prefill().decision().label());
            span.setAttribute("caravan.decode.worker", pair.decode().worker().url());
            span.setAttribute("caravan.decode.decision", pair.decode().decision().label());
        }
    }

    private static BiConsumer<Span, Exchange> leg(Leg leg) {
        return (span, exchange) -> {
            PdPair pair = PdPair.PROPERTY.get(exchange);
            if (pair != null) {
                span.setAttribute("caravan.worker", pair.side(leg).worker().url());
            }
        };
    }

    private static void legEnds(Span span, Exchange exchange) {
        LegResult r = LegResult.PROPERTY.get(exchange);
        if (r != null) {
            span.setAttribute("caravan.leg.result", r.kind().name().toLowerCase(java.util.Locale.ROOT));
            if (r.status() > 0) {
                span.setAttribute("http.response.status_code", (long) r.status());
            }
        }
    }

    /** The SDK: only loaded with {@code --enable-trace}, so its classes are needed only then. */
    private static final class Sdk {
        static RequestTracing create(String value) {
            String[] endpoint = endpoint(value);
            SpanExporter exporter = endpoint[1].equals("http")
                    ? OtlpHttpSpanExporter.builder().setEndpoint(endpoint[0]).build()
                    : OtlpGrpcSpanExporter.builder().setEndpoint(endpoint[0]).build();
            SdkTracerProvider provider = SdkTracerProvider.builder()
                    .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
                            AttributeKey.stringKey("service.name"), "caravan"))))
                    .addSpanProcessor(BatchSpanProcessor.builder(exporter).setScheduleDelay(EXPORT_DELAY).build())
                    .build();
            LOG.info("Tracing to {} (OTLP over {})", endpoint[0], endpoint[1].equals("http") ? "HTTP" : "gRPC");
            return new RequestTracing(provider.get("dev.caravan.gateway"), () -> {
                provider.forceFlush().join(5, java.util.concurrent.TimeUnit.SECONDS);
                provider.shutdown().join(5, java.util.concurrent.TimeUnit.SECONDS);
            });
        }
    }
}
