package dev.caravan.processors.forward;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;

import dev.caravan.policies.WorkerUrl;
import dev.caravan.processors.tls.TlsSettings;

/**
 * The data plane's non-blocking HTTP/1.1 client to the workers: one Vert.x {@link HttpClient} on the same Vert.x instance
 * as the ingress server, so an upstream connection lives on the event loop of the request that opened it and chunks move
 * between the two sockets without a thread hop.
 *
 * <p>Pooling: keep-alive connections, at most {@code maxConnectionsPerWorker} per worker (one per concurrent request;
 * further requests queue); idle connections close after {@link #IDLE_TIMEOUT} (SGLang's pool idle time). Thread-safe.
 */
public final class UpstreamClient implements AutoCloseable {

    /** Idle keep-alive connections are closed after this long. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(50);

    /** Where a worker URL points: parsed once per URL, not per request. */
    public record Target(String host, int port, boolean ssl, String pathPrefix) {
    }

    private final Vertx vertx;
    private final HttpClient client;
    private final Duration requestTimeout;
    private final Duration idleTimeout;
    private final Duration nonStreamAttemptTimeout;
    private final Map<String, Target> targets = new ConcurrentHashMap<>();

    /**
     * @param vertx                    the gateway's Vert.x instance
     * @param connectTimeout           limit for opening a connection
     * @param requestTimeout           whole-request limit (see {@code StreamRelay})
     * @param maxConnectionsPerWorker  pool size per worker
     */
    public UpstreamClient(Vertx vertx, Duration connectTimeout, Duration requestTimeout, int maxConnectionsPerWorker) {
        this(vertx, connectTimeout, requestTimeout, Duration.ZERO, maxConnectionsPerWorker);
    }

    /**
     * @param idleTimeout longest silence from a worker during one attempt ({@code StreamRelay}); zero = no limit
     */
    public UpstreamClient(Vertx vertx, Duration connectTimeout, Duration requestTimeout, Duration idleTimeout,
                          int maxConnectionsPerWorker) {
        this(vertx, connectTimeout, requestTimeout, idleTimeout, Duration.ZERO, maxConnectionsPerWorker);
    }

    /**
     * @param nonStreamAttemptTimeout longest wait, per attempt, for the response head of a non-streamed request
     *                                ({@code StreamRelay}, P/D legs); zero = no limit
     */
    public UpstreamClient(Vertx vertx, Duration connectTimeout, Duration requestTimeout, Duration idleTimeout,
                          Duration nonStreamAttemptTimeout, int maxConnectionsPerWorker) {
        this(vertx, connectTimeout, requestTimeout, idleTimeout, nonStreamAttemptTimeout, maxConnectionsPerWorker,
                TlsSettings.NONE);
    }

    /**
     * @param tls the client certificate and trusted CAs for {@code https://} workers
     */
    public UpstreamClient(Vertx vertx, Duration connectTimeout, Duration requestTimeout, Duration idleTimeout,
                          Duration nonStreamAttemptTimeout, int maxConnectionsPerWorker, TlsSettings tls) {
        if (nonStreamAttemptTimeout.isNegative() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout and nonStreamAttemptTimeout must be >= 0, were "
                    + idleTimeout + " and " + nonStreamAttemptTimeout);
        }
        this.vertx = vertx;
        this.requestTimeout = requestTimeout;
        this.idleTimeout = idleTimeout;
        this.nonStreamAttemptTimeout = nonStreamAttemptTimeout;
        HttpClientOptions options = tls.client(new HttpClientOptions())
                .setKeepAlive(true)
                .setKeepAliveTimeout((int) IDLE_TIMEOUT.toSeconds())
                .setIdleTimeout(0)
                .setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .setDecompressionSupported(false);
        this.client = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(maxConnectionsPerWorker));
    }

    /**
     * The host, port, scheme and path prefix of a worker URL, parsed by the same rules that admitted the worker
     * ({@link WorkerUrl}: hosts with {@code _}, bracketed IPv6 literals, which Vert.x needs bracketed for the
     * {@code Host} header, and root dots, which {@link java.net.URI} does not all parse).
     */
    public Target target(String url) {
        return targets.computeIfAbsent(url, u -> {
            WorkerUrl w = WorkerUrl.parse(u);
            return new Target(w.host(), w.port(), w.ssl(), w.path());
        });
    }

    public HttpClient client() {
        return client;
    }

    public Vertx vertx() {
        return vertx;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** Longest silence from a worker during one attempt; {@link Duration#ZERO} = no limit. */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /**
     * Longest wait, per attempt, for the head of a non-streamed response — which engines send only when the generation
     * is done, so this bounds a whole non-streamed generation; {@link Duration#ZERO} = no limit.
     */
    public Duration nonStreamAttemptTimeout() {
        return nonStreamAttemptTimeout;
    }

    @Override
    public void close() {
        client.close();
    }
}
