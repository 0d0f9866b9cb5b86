package dev.caravan.processors.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;

/** The request span and the step spans: parentage, timing of asynchronous steps, traceparent, errors. */
class TracedProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exported)).build();
    private final RequestTracing tracing = new RequestTracing(provider.get("test"), provider::close);

    @AfterEach
    void close() {
        tracing.close();
    }

    private Exchange tracedRequest(String traceparent) {
        Exchange e = CAMEL.exchange("traceparent", traceparent);
        new TraceRequestProcessor(tracing).process(e);
        return e;
    }

    private SpanData span(String name) {
        return exported.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + exported.getFinishedSpanItems()));
    }

    @Test
    void theRequestSpanContinuesTheClientsTraceAndEndsWithTheExchange() {
        Exchange e = tracedRequest("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(exported.getFinishedSpanItems()).isEmpty();
        e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));

        SpanData request = exported.getFinishedSpanItems().get(0);
        assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(request.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(request.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(request.getAttributes().asMap()).containsValue(200L);
    }

    @Test
    void aClientStepSpanIsAChildSendsItsTraceparentAndEndsWhenTheAsynchronousStepIsDone() {
        Exchange e = tracedRequest(null);
        AsyncCallback[] pending = new AsyncCallback[1];
        AsyncProcessorSupport step = new AsyncProcessorSupport() {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                pending[0] = callback;
                return false;
            }
        };
        TracedProcessor traced = new TracedProcessor(tracing, "attempt", SpanKind.CLIENT, step,
                (s, x) -> s.setAttribute("before", true), (s, x) -> s.setAttribute("after", true));
        boolean[] done = new boolean[1];
        traced.process(e, sync -> done[0] = true);

        String sent = e.getIn().getHeader("traceparent", String.class);
        assertThat(sent).startsWith("00-").hasSize(55);
        assertThat(exported.getFinishedSpanItems()).as("still running").isEmpty();
        pending[0].done(false);
        SpanData attempt = span("attempt");
        assertThat(done[0]).isTrue();
        assertThat(attempt.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(sent).isEqualTo("00-" + attempt.getTraceId() + "-" + attempt.getSpanId() + "-01");
        assertThat(attempt.getParentSpanId()).isEqualTo(
                io.opentelemetry.api.trace.Span.fromContext(RequestTracing.CONTEXT.get(e)).getSpanContext().getSpanId());
        assertThat(attempt.getAttributes().asMap().values()).containsExactlyInAnyOrder(true, true);
    }

    @Test
    void aFailedStepMarksItsSpanAsAnError() throws Exception {
        Exchange e = tracedRequest(null);
        TracedProcessor traced = new TracedProcessor(tracing, "select_worker", SpanKind.INTERNAL,
                x -> { throw new IllegalStateException("no workers"); }, (s, x) -> { }, (s, x) -> { });
        traced.process(e);
        SpanData select = span("select_worker");
        assertThat(select.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(select.getEvents()).extracting(ev -> ev.getName()).containsExactly("exception");
    }

    @Test
    void withoutTracingTheStepRunsUntouched() throws Exception {
        int[] ran = new int[1];
        Exchange e = CAMEL.exchange();
        new TraceRequestProcessor(RequestTracing.DISABLED).process(e);
        new TracedProcessor(RequestTracing.DISABLED, "attempt", SpanKind.CLIENT, x -> ran[0]++, (s, x) -> { },
                (s, x) -> { }).process(e);
        assertThat(ran[0]).isEqualTo(1);
        assertThat(e.getIn().getHeaders()).doesNotContainKey("traceparent");
        assertThat(RequestTracing.CONTEXT.get(e)).isNull();
        assertThat(exported.getFinishedSpanItems()).isEqualTo(List.of());
    }
}
