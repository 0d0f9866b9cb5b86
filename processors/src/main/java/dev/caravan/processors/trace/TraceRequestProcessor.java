package dev.caravan.processors.trace;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.ERROR_CODE;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.START_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.time.Instant;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

import dev.caravan.components.http.RequestCompletion;
import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;

/**
 * Route step {@code traceRequest} (first in the inference route; a no-op without {@code --enable-trace}): starts the
 * request's span — named {@code POST <path>}, a server span continuing the client's {@code traceparent} if it sent
 * one, started when the request arrived ({@code START_NANOS}) — and keeps its context in {@link RequestTracing#CONTEXT}
 * for the step spans. The span ends when the request completes ({@link RequestCompletion}: for an answer the relay
 * streamed, when its response ended), with what the request became: the status, the error
 * code, the model, the request id, and the decision that placed it ({@code caravan.policy}, {@code caravan.branch},
 * {@code caravan.worker}); a 5xx or a failure is an error span.
 */
public final class TraceRequestProcessor implements Processor {

    private final RequestTracing tracing;

    public TraceRequestProcessor(RequestTracing tracing) {
        this.tracing = tracing;
    }

    @Override
    public void process(Exchange exchange) {
        if (!tracing.enabled()) {
            return;
        }
        String path = exchange.getIn() instanceof HttpMessage m ? m.getRequest().path()
                : exchange.getIn().getHeader(Exchange.HTTP_PATH, "", String.class);
        SpanBuilder builder = tracing.requestSpan("POST " + path, exchange.getIn())
                .setAttribute("http.request.method", "POST").setAttribute("url.path", path)
                .setAttribute("caravan.request.kind", String.valueOf(REQUEST_KIND.get(exchange)));
        Long arrived = START_NANOS.get(exchange);
        if (arrived != null) {
            long agoNanos = System.nanoTime() - arrived;
            builder.setStartTimestamp(Instant.now().minusNanos(Math.max(0, agoNanos)));
        }
        Span span = builder.startSpan();
        RequestTracing.CONTEXT.set(exchange, Context.root().with(span));
        RequestCompletion.onDone(exchange, done -> end(span, done));
    }

    private static void end(Span span, Exchange exchange) {
        Integer status = RESPONSE_STATUS.get(exchange);
        if (status == null) {
            status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        }
        if (status != null) {
            span.setAttribute("http.response.status_code", status);
        }
        String code = ERROR_CODE.get(exchange);
        if (code != null) {
            span.setAttribute("caravan.error_code", code);
        }
        String model = MODEL.get(exchange);
        if (model != null) {
            span.setAttribute("caravan.model", model);
        }
        String requestId = REQUEST_ID.get(exchange);
        if (requestId != null) {
            span.setAttribute("caravan.request_id", requestId);
        }
        Decision decision = DECISION.get(exchange);
        if (decision != null) {
            span.setAttribute("caravan.policy", decision.policy());
            span.setAttribute("caravan.branch", decision.branch());
        }
        Worker worker = WORKER.get(exchange);
        if (worker != null) {
            span.setAttribute("caravan.worker", worker.url());
        }
        if (exchange.getException() != null || (status != null && status >= 500)) {
            span.setStatus(StatusCode.ERROR, code != null ? code : "HTTP " + status);
        }
        span.end(Instant.now());
    }
}
