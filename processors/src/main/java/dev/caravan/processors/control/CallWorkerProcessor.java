package dev.caravan.processors.control;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.policies.WorkerUrl;
import dev.caravan.processors.tls.TlsSettings;

/**
 * Control step {@code callWorker}, inside the {@code call-workers} split, after {@code prepareControlCall}: sends the
 * sub-exchange's {@link ControlCall} (method and headers as prepared, the message body as request body) to its worker
 * with a non-blocking Vert.x client, and leaves the answer as an HTTP producer would: status in
 * {@link Exchange#HTTP_RESPONSE_CODE}, the body as a {@code String}, no other headers. Any status is an answer; a refused
 * or reset connection, or no complete answer within the timeout (connection included), fails the sub-exchange, which the
 * route's {@code doCatch} records ({@code recordControlFailure}). No thread waits.
 *
 * <p>Why not camel-netty-http: Camel's HTTP components take the endpoint URI apart with {@link java.net.URI}, which finds
 * no host in {@code http://worker_a:8000} (netty-http then fails with "hostname can't be null", or sends
 * {@code Host: null} when given the host separately). The call goes to the worker's own parsed URL
 * ({@link dev.caravan.policies.Worker#target()}), as data-plane requests and health probes do, through the gateway's
 * Vert.x instance and therefore its resolver.
 */
public final class CallWorkerProcessor extends AsyncProcessorSupport {

    private final Vertx vertx;
    private final HttpClient client;
    private final long timeoutMs;

    /**
     * @param vertx   the gateway's Vert.x instance (its event loops and DNS resolver)
     * @param timeout limit for one call, connection included ({@code --control-timeout-secs})
     */
    public CallWorkerProcessor(Vertx vertx, Duration timeout) {
        this(vertx, timeout, TlsSettings.NONE);
    }

    /**
     * @param tls the client certificate and trusted CAs for {@code https://} workers
     */
    public CallWorkerProcessor(Vertx vertx, Duration timeout, TlsSettings tls) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("control call timeout must be > 0, was " + timeout);
        }
        this.vertx = vertx;
        this.timeoutMs = timeout.toMillis();
        // A small pool of its own: a control call never queues behind inference streams on the data plane's pool.
        this.client = vertx.createHttpClient(tls.client(new HttpClientOptions().setKeepAlive(true).setKeepAliveTimeout(30)),
                new PoolOptions().setHttp1MaxSize(4));
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        ControlCall call = ControlCall.PROPERTY.get(exchange);
        if (call == null) {
            exchange.setException(new IllegalStateException("callWorker expects prepareControlCall to run first"));
            callback.done(true);
            return true;
        }
        Message m = exchange.getMessage();
        WorkerUrl target = call.worker().target();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.valueOf(call.method()))
                .setHost(target.host()).setPort(target.port()).setSsl(target.ssl())
                .setURI(target.path() + call.path()).setConnectTimeout(timeoutMs);
        for (Map.Entry<String, Object> h : m.getHeaders().entrySet()) {
            if (!h.getKey().startsWith("Camel") && h.getValue() instanceof String v) {
                options.putHeader(h.getKey(), v);
            }
        }
        String body = m.getBody(String.class);
        AtomicBoolean finished = new AtomicBoolean();
        AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
        long timer = vertx.setTimer(timeoutMs, id -> {
            if (finished.compareAndSet(false, true)) {
                HttpClientRequest req = sent.get();
                if (req != null) {
                    req.reset(); // frees the pooled connection a hung worker would otherwise keep
                }
                exchange.setException(new TimeoutException("no answer from " + call.url() + " within " + timeoutMs
                        + " ms"));
                callback.done(false);
            }
        });
        client.request(options)
                .compose(req -> {
                    sent.set(req);
                    return (body == null ? req.send() : req.send(body))
                            .compose(resp -> resp.body().map(b -> Map.entry(resp.statusCode(), b.toString())));
                })
                .onComplete(ar -> {
                    vertx.cancelTimer(timer);
                    if (!finished.compareAndSet(false, true)) {
                        return;
                    }
                    if (ar.failed()) {
                        exchange.setException(ar.cause());
                    } else {
                        m.getHeaders().clear();
                        m.setHeader(Exchange.HTTP_RESPONSE_CODE, ar.result().getKey());
                        m.setBody(ar.result().getValue());
                    }
                    callback.done(false);
                });
        return false;
    }
}
