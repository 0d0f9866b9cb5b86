package dev.caravan.processors.pd;

import io.vertx.core.Context;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.support.SynchronizationAdapter;

import dev.caravan.processors.CaravanExchangeProperties;
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
 * <p>Reads {@code CLIENT_REQUEST} (else the platform-http message), {@code PD_PAIR}, {@code START_NANOS}. Writes
 * {@code PD_DISPATCH} and clears {@code PD_VERDICT} (a retry starts undecided).
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
        HttpServerRequest client = exchange.getProperty(CaravanExchangeProperties.CLIENT_REQUEST, HttpServerRequest.class);
        if (client == null && exchange.getIn() instanceof HttpMessage m) {
            client = m.getRequest();
        }
        PdPair pair = exchange.getProperty(CaravanExchangeProperties.PD_PAIR, PdPair.class);
        if (client == null || pair == null) {
            throw new IllegalStateException("openPdDispatch needs a platform-http request and selectPdPair before it");
        }
        Context context = client instanceof HttpServerRequestInternal internal ? internal.context()
                : upstream.vertx().getOrCreateContext();
        long now = System.nanoTime();
        Long arrived = exchange.getProperty(CaravanExchangeProperties.START_NANOS, Long.class);
        long deadline = (arrived != null ? arrived : now) + upstream.requestTimeout().toNanos();
        PdDispatch dispatch = new PdDispatch(pair, client, context, upstream, metrics, now, deadline);
        exchange.setProperty(CaravanExchangeProperties.PD_DISPATCH, dispatch);
        exchange.removeProperty(CaravanExchangeProperties.PD_VERDICT);
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
