package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.CLIENT_REQUEST;
import static dev.caravan.processors.CaravanExchangeProperties.START_NANOS;

import io.vertx.core.Context;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.support.SynchronizationAdapter;

import dev.caravan.processors.forward.UpstreamClient;

/**
 * P/D route step {@code openPdDispatch}: creates the attempt's {@link PdDispatch} — the state both legs, the aggregation
 * and the relay share — on the client connection's event loop, and starts watching the client connection (a client that
 * leaves cancels both legs). An on-completion hook cancels whatever is still open when the exchange ends without the
 * relay having taken it (reason {@code abandoned}), so no upstream connection outlives its request.
 *
 * <p>The request timeout ({@code --request-timeout-secs}) is end to end: it counts from the request's arrival
 * ({@code START_NANOS}), across retries, as on the regular path.
 *
 * <p>Reads {@code CLIENT_REQUEST} (else the platform-http message), {@code PdPair.PROPERTY}, {@code START_NANOS}.
 * Writes {@code PdDispatch.PROPERTY} and clears {@code PdVerdict.PROPERTY} (a retry starts undecided).
 */
public final class OpenDispatchProcessor implements Processor {

    private final UpstreamClient upstream;
    private final PdMetrics metrics;

    public OpenDispatchProcessor(UpstreamClient upstream, PdMetrics metrics) {
        this.upstream = upstream;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        HttpServerRequest client = CLIENT_REQUEST.get(exchange);
        if (client == null && exchange.getIn() instanceof HttpMessage m) {
            client = m.getRequest();
        }
        PdPair pair = PdPair.PROPERTY.get(exchange);
        if (client == null || pair == null) {
            throw new IllegalStateException("openPdDispatch needs a platform-http request and selectPdPair before it");
        }
        Context context = client instanceof HttpServerRequestInternal internal ? internal.context()
                : upstream.vertx().getOrCreateContext();
        long now = System.nanoTime();
        Long arrived = START_NANOS.get(exchange);
        long deadline = (arrived != null ? arrived : now) + upstream.requestTimeout().toNanos();
        PdDispatch dispatch = new PdDispatch(pair, client, context, upstream, metrics, now, deadline);
        PdDispatch.PROPERTY.set(exchange, dispatch);
        PdVerdict.PROPERTY.remove(exchange);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                dispatch.cancel(Leg.PREFILL, PdMetrics.ABANDONED);
                dispatch.cancel(Leg.DECODE, PdMetrics.ABANDONED);
            }
        });
        dispatch.open();
    }
}
