package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerUrl;
import dev.caravan.processors.tls.TlsSettings;

/**
 * Step {@code probeWorkers} of the {@code health-check} timer route: sends every planned {@link HealthProbe} at once
 * with a non-blocking Vert.x client and answers with one {@link HealthProbeResult} each (body
 * {@code List<HealthProbeResult>}) when the last has answered or timed out. Nothing waits on a thread, and the probes
 * share nothing with the request path but the Vert.x instance, so a slow or dead worker never delays routing.
 *
 * <p>A probe succeeds on a 2xx within its timeout (the whole exchange, connection included); the body is discarded.
 * It carries {@code Authorization: Bearer} with the worker's API key, or the gateway's, as SGLang's checker does.
 */
public final class ProbeWorkersProcessor extends AsyncProcessorSupport {

    private final Vertx vertx;
    private final HttpClient client;
    private final String gatewayApiKey;
    private final Context context;

    /**
     * @param gatewayApiKey key for workers without their own, or null
     */
    public ProbeWorkersProcessor(Vertx vertx, String gatewayApiKey) {
        this(vertx, gatewayApiKey, TlsSettings.NONE);
    }

    /**
     * @param tls the client certificate and trusted CAs for {@code https://} workers
     */
    public ProbeWorkersProcessor(Vertx vertx, String gatewayApiKey, TlsSettings tls) {
        this.vertx = vertx;
        this.gatewayApiKey = gatewayApiKey;
        this.client = vertx.createHttpClient(tls.client(new HttpClientOptions().setKeepAlive(true)
                        .setKeepAliveTimeout(30)),
                new PoolOptions().setHttp1MaxSize(2));
        this.context = vertx.getOrCreateContext();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        List<?> planned = exchange.getMessage().getBody(List.class);
        if (planned == null || planned.isEmpty()) {
            exchange.getMessage().setBody(List.of());
            callback.done(true);
            return true;
        }
        List<HealthProbeResult> results = Collections.synchronizedList(new ArrayList<>(planned.size()));
        AtomicInteger remaining = new AtomicInteger(planned.size());
        Runnable countDown = () -> {
            if (remaining.decrementAndGet() == 0) {
                exchange.getMessage().setBody(new ArrayList<>(results));
                callback.done(false);
            }
        };
        context.runOnContext(v -> {
            for (Object p : planned) {
                probe((HealthProbe) p, r -> {
                    results.add(r);
                    countDown.run();
                });
            }
        });
        return false;
    }

    private void probe(HealthProbe probe, Consumer<HealthProbeResult> done) {
        AtomicBoolean finished = new AtomicBoolean();
        BiConsumer<Boolean, String> finish = (ok, detail) -> {
            if (finished.compareAndSet(false, true)) {
                done.accept(new HealthProbeResult(probe, ok, detail));
            }
        };
        long timeoutMs = Math.max(1, probe.timeout().toMillis());
        RequestOptions options;
        try {
            WorkerUrl target = WorkerUrl.parseEndpoint(probe.url()); // the worker's host rules ('_', [::1], root dot)
            options = new RequestOptions().setMethod(HttpMethod.GET).setHost(target.host()).setPort(target.port())
                    .setSsl(target.ssl()).setURI(target.path().isEmpty() ? "/" : target.path())
                    .setConnectTimeout(timeoutMs);
        } catch (IllegalArgumentException e) {
            finish.accept(false, "bad URL: " + e.getMessage());
            return;
        }
        Worker w = probe.worker();
        String key = w.apiKey() != null ? w.apiKey() : gatewayApiKey;
        if (key != null) {
            options.putHeader("Authorization", "Bearer " + key);
        }
        AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
        long timer = vertx.setTimer(timeoutMs, id -> {
            finish.accept(false, "timeout after " + timeoutMs + " ms");
            HttpClientRequest req = sent.get();
            if (req != null) {
                req.reset(); // frees the pooled connection a hung worker would otherwise keep
            }
        });
        client.request(options)
                .compose(req -> {
                    sent.set(req);
                    return req.send().compose(resp -> resp.body().map(b -> resp.statusCode()));
                })
                .onComplete(ar -> {
                    vertx.cancelTimer(timer);
                    if (ar.failed()) {
                        String m = ar.cause().getMessage();
                        finish.accept(false, m == null ? ar.cause().getClass().getSimpleName() : m);
                    } else {
                        int status = ar.result();
                        finish.accept(status >= 200 && status < 300, "HTTP " + status);
                    }
                });
    }

    @Override
    protected void doStop() {
        client.close();
    }
}
