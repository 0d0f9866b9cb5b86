package dev.caravan.processors.forward;

import static dev.caravan.processors.CaravanExchangeProperties.HOLD_BACK_STATUSES;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.STREAM;

import java.util.function.IntPredicate;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.processors.tuning.RouteEnds;

/**
 * One forwarded request: sends it to the worker and relays the response through a {@link RelayCore}, which owns the
 * limits, client close, failures and back-pressure. What is particular to the data plane lives here: the request is
 * sent on the shared {@link UpstreamClient}; a status the retry steps asked to hold back ({@code HOLD_BACK_STATUSES})
 * is discarded instead of relayed; the head gets {@code X-Request-Id} and the decision headers; token counts are read
 * as the body passes ({@link UsageSniffer}; an {@link OutputMeter} on the exchange hears the output so far after each chunk), and so is a response's id when a {@link ResponseIdSink} wants it; finishing releases the worker lease, records {@code Usage.PROPERTY} and
 * reports the attempt to the forward step's {@link ForwardAttemptListener} (the circuit breakers). The first body
 * chunk is reported to the lease ({@link WorkerLease#firstToken()}): the engine's prefill of the prompt is done. Runs
 * on the client connection's event loop.
 */
final class StreamRelay implements RelayCore.Hooks {

    private final ForwardStreamProcessor owner;
    private final Exchange exchange;
    private final Worker worker;
    private final WorkerLease lease;
    private final RelayCore core;
    private UsageSniffer sniffer;
    private ResponseIdSniffer idSniffer;
    private OutputMeter meter;

    StreamRelay(ForwardStreamProcessor owner, Exchange exchange, AsyncCallback callback, HttpServerResponse client,
                Worker worker, WorkerLease lease, long startNanos) {
        this.owner = owner;
        this.exchange = exchange;
        this.worker = worker;
        this.lease = lease;
        boolean streamed = STREAM.get(exchange, false);
        this.core = new RelayCore(exchange, callback, client, owner.timing(), startNanos, streamed, worker.url(), this);
    }

    void start(String path, MultiMap headers, Buffer body) {
        if (!core.begin()) {
            return;
        }
        UpstreamClient.Target target = owner.upstream().target(worker.engineUrl());
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost(target.host())
                .setPort(target.port())
                .setSsl(target.ssl())
                .setURI(target.pathPrefix() + path)
                .setHeaders(headers);
        owner.upstream().client().request(options).onComplete(ar -> {
            if (ar.failed()) {
                core.failBeforeHead(ar.cause());
            } else if (core.attach(ar.result())) { // false: the client left while we waited for a connection
                ar.result().send(body).onComplete(sent -> {
                    if (sent.failed()) {
                        core.failBeforeHead(sent.cause());
                    } else {
                        onResponse(sent.result());
                    }
                });
                RouteEnds ends = owner.routeEnds();
                if (ends != null) {
                    ends.runPending(); // the request is on its way: earlier answers' route ends may run
                }
            }
        });
    }

    private void onResponse(HttpClientResponse upstream) {
        IntPredicate holdBack = HOLD_BACK_STATUSES.get(exchange);
        if (!core.finished() && holdBack != null && holdBack.test(upstream.statusCode())) {
            core.discard(upstream);
        } else {
            core.stream(upstream);
        }
    }

    @Override
    public void onHead(HttpClientResponse upstream, MultiMap clientHeaders) {
        sniffer = UsageSniffer.forContentType(upstream.getHeader("content-type"));
        meter = OutputMeter.PROPERTY.get(exchange);
        ResponseIdSink sink = ResponseIdSink.PROPERTY.get(exchange);
        if (sink != null && upstream.statusCode() >= 200 && upstream.statusCode() < 300) {
            idSniffer = ResponseIdSniffer.forContentType(upstream.getHeader("content-type"),
                    id -> sink.onResponseId(id, worker));
        }
        owner.decorate(exchange, clientHeaders);
    }

    @Override
    public Buffer onChunk(Buffer chunk) {
        lease.firstToken(); // engines stream their first event once the prefill is done (cache_aware's backlog)
        sniffer.accept(chunk);
        if (meter != null) {
            meter.outputSoFar(sniffer.outputSoFar());
        }
        if (idSniffer != null) {
            idSniffer.accept(chunk); // before the chunk is written: the id is known before the client sees it
        }
        return chunk;
    }

    /** The data plane's response is the request's answer. */
    @Override
    public RouteEnds routeEnds() {
        return owner.routeEnds();
    }

    @Override
    public void finished(String outcome) {
        lease.release();
        if (sniffer != null) {
            Usage.PROPERTY.set(exchange, sniffer.finish());
        }
        if (idSniffer != null && ForwardOutcomes.COMPLETED.equals(outcome)) {
            idSniffer.finish();
        }
        owner.attemptEnded(worker, outcome, RESPONSE_STATUS.get(exchange));
    }
}
