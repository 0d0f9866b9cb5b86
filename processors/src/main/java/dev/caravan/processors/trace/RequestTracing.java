package dev.caravan.processors.trace;

import java.util.Map;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import org.apache.camel.Message;

import dev.caravan.processors.ExchangeProperty;

/**
 * The gateway's OpenTelemetry tracing ({@code --enable-trace}): one span per inference request ({@code traceRequest},
 * continuing the client's W3C {@code traceparent} when it sent one), and child spans for the steps the gateway wraps
 * ({@link TracedProcessor}: worker selection, each attempt, the P/D legs). The request span's context travels in
 * {@link #CONTEXT}; a span that calls an engine sends its own {@code traceparent} (and {@code tracestate}) upstream, so
 * the engine's spans join the trace.
 *
 * <p>Spans use the OpenTelemetry API only; the SDK and exporter that send them are built by the gateway, and
 * {@link #DISABLED} (no tracer) costs nothing: no span, no header, no allocation.
 */
public final class RequestTracing implements AutoCloseable {

    /** The request span's context: the parent of the step spans. Absent when tracing is off. */
    public static final ExchangeProperty<Context> CONTEXT = ExchangeProperty.of("caravanTraceContext", Context.class);

    /** Tracing off. */
    public static final RequestTracing DISABLED = new RequestTracing(null, () -> { });

    private static final TextMapPropagator PROPAGATOR = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<Map<String, Object>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, Object> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, Object> carrier, String key) {
            Object v = carrier == null ? null : carrier.get(key); // Camel's headers are case-insensitive
            return v instanceof String s ? s : null;
        }
    };

    private final Tracer tracer;
    private final Runnable onClose;

    /**
     * @param tracer  where spans are made, or null for no tracing
     * @param onClose flushes and releases the exporter (called once, when the gateway closes)
     */
    public RequestTracing(Tracer tracer, Runnable onClose) {
        this.tracer = tracer;
        this.onClose = onClose;
    }

    public boolean enabled() {
        return tracer != null;
    }

    /** A span continuing the trace context in {@code message}'s headers ({@code traceparent}), if any. */
    SpanBuilder requestSpan(String name, Message message) {
        Context parent = PROPAGATOR.extract(Context.root(), message.getHeaders(), HEADERS);
        return tracer.spanBuilder(name).setParent(parent).setSpanKind(SpanKind.SERVER);
    }

    /** A child span of the request's. */
    Span childSpan(Context parent, String name, SpanKind kind) {
        return tracer.spanBuilder(name).setParent(parent).setSpanKind(kind).startSpan();
    }

    /** Puts {@code span}'s W3C trace context in {@code message}'s headers, which the upstream call sends. */
    static void inject(Span span, Message message) {
        PROPAGATOR.inject(Context.root().with(span), message, (m, key, value) -> m.setHeader(key, value));
    }

    @Override
    public void close() {
        onClose.run();
    }
}
