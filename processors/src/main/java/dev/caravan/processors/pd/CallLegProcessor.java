package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.PD_DECODE_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.PD_PREFILL_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.STREAM;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_PATH;

import java.util.Set;
import java.util.TreeSet;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.policies.Worker;
import dev.caravan.processors.forward.UpstreamHeaders;

/**
 * P/D leg steps {@code callPrefill} and {@code callDecode} (the {@code pd-prefill-leg} / {@code pd-decode-leg} routes,
 * the multicast's two outputs): sends the leg's body to its worker on the non-blocking upstream client and completes
 * the leg's exchange with a {@link LegResult} body when the leg has ended — prefill: its response read to the end;
 * decode: its response head, the body left unread for the relay — or failed, timed out or was cancelled.
 *
 * <p>Asynchronous: returns {@code false} at once; no thread waits for the engine. Upstream headers are the message's
 * ({@link UpstreamHeaders}, as {@code forwardStream} sends them: a YAML {@code setHeader} in a leg route reaches that
 * leg's engine only), with the worker's (or gateway's) API key and the request id.
 *
 * <p>Reads {@code PdDispatch.PROPERTY}, {@code PD_PREFILL_BODY} / {@code PD_DECODE_BODY}, {@code UPSTREAM_PATH},
 * {@code REQUEST_ID}, {@code STREAM}. Writes the body and {@code LegResult.PROPERTY}.
 */
public final class CallLegProcessor extends AsyncProcessorSupport {

    private final Leg leg;
    private final String gatewayApiKey;

    /**
     * @param leg           which leg this step calls
     * @param gatewayApiKey key sent to workers without their own, or null to forward the client's
     */
    public CallLegProcessor(Leg leg, String gatewayApiKey) {
        this.leg = leg;
        this.gatewayApiKey = gatewayApiKey;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        PdDispatch dispatch = PdDispatch.PROPERTY.get(exchange);
        Buffer body = (leg == Leg.PREFILL ? PD_PREFILL_BODY : PD_DECODE_BODY).get(exchange);
        String path = UPSTREAM_PATH.get(exchange);
        if (dispatch == null || body == null || path == null) {
            exchange.setException(new IllegalStateException("call" + (leg == Leg.PREFILL ? "Prefill" : "Decode")
                    + " needs parseRequest, openPdDispatch and the leg's body before it"));
            callback.done(true);
            return true;
        }
        Worker worker = dispatch.pair().side(leg).worker();
        String apiKey = worker.apiKey() != null ? worker.apiKey() : gatewayApiKey;
        MultiMap headers = UpstreamHeaders.forRequest(exchange.getIn().getHeaders(), parameterNames(dispatch.client()),
                apiKey, REQUEST_ID.get(exchange));
        // a prefill answers one token, whole; a decode sends its head early only when streamed
        boolean answersWhenDone = leg == Leg.PREFILL
                || !STREAM.get(exchange, false);
        dispatch.startLeg(leg, path, headers, body, answersWhenDone, result -> {
            exchange.getIn().setBody(result);
            LegResult.PROPERTY.set(exchange, result);
            callback.done(false);
        });
        return false;
    }

    /** Query parameter names the client did not also send as headers: platform-http copied them into the headers. */
    private static Set<String> parameterNames(HttpServerRequest request) {
        if (request.params().isEmpty()) {
            return Set.of();
        }
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String name : request.params().names()) {
            if (!request.headers().contains(name)) {
                names.add(name);
            }
        }
        return names;
    }
}
