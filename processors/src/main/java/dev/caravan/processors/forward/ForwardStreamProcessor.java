package dev.caravan.processors.forward;

import static dev.caravan.processors.CaravanExchangeProperties.CLIENT_REQUEST;
import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.LEASE;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.START_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_PATH;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;

import io.netty.util.AsciiString;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.processors.tuning.RouteEnds;

/**
 * Route step {@code forwardStream}: sends the request to the worker chosen by {@code selectWorker} and streams the
 * response back to the client as the engine produces it — SSE or JSON, the same path — without holding a thread.
 *
 * <p>An asynchronous processor: it starts a {@link StreamRelay} on the client connection's event loop and returns
 * {@code false}; the relay completes the exchange when the response has ended, failed, or the client left. It writes
 * the response itself (marking {@link CaravanExchangeProperties#RESPONSE_COMMITTED}) so nothing later writes a second
 * one; an upstream failure before the response head instead leaves a {@code GatewayException} (502/504) on the exchange
 * for the route's error handler. The lease taken by {@code selectWorker} is released when the relay finishes.
 *
 * <p>Upstream headers are the message's headers ({@link UpstreamHeaders}), so a YAML {@code setHeader} before this step
 * reaches the engine. Reads: {@code CLIENT_REQUEST} (else the platform-http message), {@code WORKER}, {@code LEASE},
 * {@code DECISION}, {@code REQUEST_ID}, {@code UPSTREAM_PATH} (else the client's path), {@code UPSTREAM_BODY} (else
 * {@code REQUEST_BODY}), {@code STREAM}, {@code START_NANOS} (the end-to-end deadline counts from it),
 * {@code HOLD_BACK_STATUSES} (set by the retry steps: such a status is not relayed because another attempt follows).
 * Writes: {@code RESPONSE_COMMITTED}, {@code RESPONSE_STATUS}, {@code TTFB_NANOS}, {@code Usage.PROPERTY},
 * {@code OUTCOME}.
 */
public final class ForwardStreamProcessor extends AsyncProcessorSupport {

    private static final Logger LOG = LoggerFactory.getLogger(ForwardStreamProcessor.class);

    public static final String WORKER_HEADER = "X-Caravan-Worker";
    public static final String DECISION_HEADER = "X-Caravan-Decision";

    // the names decorate() sets on every response, with their hashes computed once (Vert.x's header map hashes a
    // String name on every call)
    private static final AsciiString REQUEST_ID_NAME = AsciiString.cached(UpstreamHeaders.REQUEST_ID);
    private static final AsciiString WORKER_NAME = AsciiString.cached(WORKER_HEADER);
    private static final AsciiString DECISION_NAME = AsciiString.cached(DECISION_HEADER);

    private final UpstreamClient upstream;
    private final RelayTiming timing;
    private final RouteEnds routeEnds;
    private final boolean decisionHeaders;
    private final String gatewayApiKey;
    private final ForwardAttemptListener attempts;

    /**
     * @param upstream        the shared upstream client
     * @param decisionHeaders add {@value #WORKER_HEADER} and {@value #DECISION_HEADER} to responses
     * @param gatewayApiKey   key sent upstream for workers without their own, or null to forward the client's
     */
    public ForwardStreamProcessor(UpstreamClient upstream, boolean decisionHeaders, String gatewayApiKey) {
        this(upstream, decisionHeaders, gatewayApiKey, ForwardAttemptListener.NONE);
    }

    /**
     * @param attempts told how every attempt ended (the circuit breakers)
     */
    public ForwardStreamProcessor(UpstreamClient upstream, boolean decisionHeaders, String gatewayApiKey,
                                  ForwardAttemptListener attempts) {
        this(upstream, decisionHeaders, gatewayApiKey, attempts, new RouteEnds(upstream.timers()));
    }

    /**
     * @param routeEnds where an answered request's route end waits for the event loop's next upstream request, or
     *                  null: Camel resumes the route as soon as the answer ended ({@code CamelTuning#routeEnds})
     */
    public ForwardStreamProcessor(UpstreamClient upstream, boolean decisionHeaders, String gatewayApiKey,
                                  ForwardAttemptListener attempts, RouteEnds routeEnds) {
        this.upstream = upstream;
        this.timing = RelayTiming.of(upstream);
        this.routeEnds = routeEnds;
        this.decisionHeaders = decisionHeaders;
        this.gatewayApiKey = gatewayApiKey;
        this.attempts = attempts;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        HttpServerRequest request = CLIENT_REQUEST.get(exchange);
        if (request == null && exchange.getIn() instanceof HttpMessage m) {
            request = m.getRequest();
        }
        Worker worker = WORKER.get(exchange);
        WorkerLease lease = LEASE.get(exchange);
        if (request == null || worker == null || lease == null) {
            exchange.setException(new IllegalStateException(
                    "forwardStream needs a platform-http request and selectWorker before it"));
            callback.done(true);
            return true;
        }
        String path = UPSTREAM_PATH.get(exchange);
        if (path == null) {
            path = request.uri();
        }
        String requestId = REQUEST_ID.get(exchange);
        String apiKey = worker.apiKey() != null ? worker.apiKey() : gatewayApiKey;
        MultiMap headers = UpstreamHeaders.forRequest(exchange.getIn().getHeaders(), parameterNames(request), apiKey,
                requestId);
        Buffer body = bodyOf(exchange);
        Long start = START_NANOS.get(exchange);
        StreamRelay relay = new StreamRelay(this, exchange, callback, request.response(), worker, lease,
                start != null ? start : timing.nanoTime().getAsLong());
        String upstreamPath = path;
        // Start on the client connection's event loop so the upstream request and every callback share its thread.
        contextOf(request).runOnContext(v -> relay.start(upstreamPath, headers, body));
        return false;
    }

    /** Query (and form) parameter names the client did not also send as headers: platform-http copied them in. */
    private static Set<String> parameterNames(HttpServerRequest request) {
        MultiMap params = request.params();
        if (params.isEmpty()) {
            return Set.of();
        }
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String name : params.names()) {
            if (!request.headers().contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    private Context contextOf(HttpServerRequest request) {
        if (request instanceof HttpServerRequestInternal internal) {
            return internal.context();
        }
        return upstream.vertx().getOrCreateContext();
    }

    private static Buffer bodyOf(Exchange exchange) {
        Object body = UPSTREAM_BODY.get(exchange);
        if (body == null) {
            body = REQUEST_BODY.get(exchange);
        }
        if (body == null) {
            body = exchange.getIn().getBody();
        }
        if (body instanceof Buffer b) {
            return b;
        }
        if (body instanceof byte[] bytes) {
            return Buffer.buffer(bytes);
        }
        if (body == null) {
            return Buffer.buffer();
        }
        String s = exchange.getContext().getTypeConverter().tryConvertTo(String.class, exchange, body);
        return Buffer.buffer(s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8));
    }

    /** Adds the gateway's own response headers (called by the relay just before it writes the head). */
    void decorate(Exchange exchange, MultiMap headers) {
        String requestId = REQUEST_ID.get(exchange);
        if (requestId != null && !headers.contains(REQUEST_ID_NAME)) {
            headers.set(REQUEST_ID_NAME, requestId);
        }
        UpstreamHeaders.addResponseHeaders(exchange, headers);
        if (!decisionHeaders) {
            return;
        }
        Worker worker = WORKER.get(exchange);
        Decision decision = DECISION.get(exchange);
        if (worker != null) {
            headers.set(WORKER_NAME, worker.url());
        }
        if (decision != null) {
            headers.set(DECISION_NAME, decision.label());
        }
    }

    UpstreamClient upstream() {
        return upstream;
    }

    RelayTiming timing() {
        return timing;
    }

    RouteEnds routeEnds() {
        return routeEnds;
    }

    /** Reports one ended attempt; a failing listener must not break the relay. */
    void attemptEnded(Worker worker, String outcome, Integer status) {
        try {
            attempts.onAttemptEnded(worker, outcome, status);
        } catch (RuntimeException e) {
            LOG.warn("Attempt listener failed for {}: {}", worker.url(), e.toString());
        }
    }
}
