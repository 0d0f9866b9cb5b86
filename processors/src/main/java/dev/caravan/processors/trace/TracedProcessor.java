package dev.caravan.processors.trace;

import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_END_NANOS;

import java.time.Instant;
import java.util.function.BiConsumer;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * A route step wrapped in a child span of the request's ({@link RequestTracing#CONTEXT}): the span starts before the
 * step and ends when it is done — for an asynchronous step (an attempt streaming its answer, a P/D leg) when it
 * completes, not when it returns; for the attempt whose response answered the request, when that response ended. A {@link SpanKind#CLIENT} span (a call to an engine) first puts its
 * {@code traceparent} in the message headers the call sends. What the span says is the describer's ({@code before}
 * the step: e.g. the worker; {@code after}: e.g. the decision, the status); a failure the step left on the exchange
 * marks the span as an error. Without a request span (tracing off, or a request the route did not trace) the step runs
 * untouched. The wrapper is installed by the gateway around the beans of the steps it traces, so the routes and the
 * steps themselves do not change.
 */
public final class TracedProcessor extends AsyncProcessorSupport {

    private final RequestTracing tracing;
    private final String name;
    private final SpanKind kind;
    private final AsyncProcessor step;
    private final BiConsumer<Span, Exchange> before;
    private final BiConsumer<Span, Exchange> after;

    /**
     * @param name   the span's name, e.g. {@code select_worker}
     * @param before adds attributes before the step runs (may be a no-op)
     * @param after  adds attributes once it is done (may be a no-op)
     */
    public TracedProcessor(RequestTracing tracing, String name, SpanKind kind, Processor step,
                           BiConsumer<Span, Exchange> before, BiConsumer<Span, Exchange> after) {
        this.tracing = tracing;
        this.name = name;
        this.kind = kind;
        this.step = AsyncProcessorConverterHelper.convert(step);
        this.before = before;
        this.after = after;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Context parent = RequestTracing.CONTEXT.get(exchange);
        if (parent == null || !tracing.enabled()) {
            return step.process(exchange, callback);
        }
        Span span = tracing.childSpan(parent, name, kind);
        before.accept(span, exchange);
        if (kind == SpanKind.CLIENT) {
            RequestTracing.inject(span, exchange.getIn());
        }
        long began = System.nanoTime();
        return step.process(exchange, doneSync -> {
            try {
                after.accept(span, exchange);
                if (exchange.getException() != null) {
                    span.recordException(exchange.getException());
                    span.setStatus(StatusCode.ERROR, String.valueOf(exchange.getException().getMessage()));
                }
            } finally {
                endSpan(span, exchange, began);
                callback.done(doneSync);
            }
        });
    }

    /**
     * Ends the span when the step's work ended: for the step that streamed the request's answer, when its response
     * ended ({@code RESPONSE_END_NANOS}; the exchange resumes a moment later), otherwise now.
     */
    private static void endSpan(Span span, Exchange exchange, long began) {
        Long ended = RESPONSE_END_NANOS.get(exchange);
        long sinceEnd = ended == null ? -1 : System.nanoTime() - ended;
        if (ended != null && ended - began > 0 && sinceEnd > 0) {
            span.end(Instant.now().minusNanos(sinceEnd));
        } else {
            span.end();
        }
    }

    /** The wrapped step. */
    public Processor step() {
        return step;
    }

    @Override
    public String toString() {
        return "Traced[" + name + "](" + step + ")";
    }
}
