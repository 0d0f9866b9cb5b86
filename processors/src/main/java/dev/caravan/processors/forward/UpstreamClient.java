package dev.caravan.processors.forward;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.channel.EventLoop;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.impl.ContextInternal;

import dev.caravan.policies.WorkerUrl;
import dev.caravan.processors.time.DelayScheduler;
import dev.caravan.processors.tls.TlsSettings;

/**
 * The data plane's non-blocking HTTP/1.1 client to the workers, on the same Vert.x instance as the ingress server: one
 * Vert.x {@link HttpClient} per event loop ({@link #client()} answers the calling loop's), so an upstream connection is
 * only ever used by requests of the event loop it lives on, and chunks move between the two sockets without a thread
 * hop. (With one client for all loops, Vert.x's pool lends a kept-alive connection to a request of any loop; each chunk,
 * and each acknowledgement back, then crossed threads through a task queue: a quarter of the SSE relay's CPU.)
 *
 * <p>Pooling: keep-alive connections, at most {@code maxConnectionsPerWorker} per worker (one per concurrent request;
 * further requests queue), split evenly over the event loops, at least one each; idle connections close after
 * {@link #IDLE_TIMEOUT} (SGLang's pool idle time). Thread-safe.
 */
public final class UpstreamClient implements AutoCloseable {

    /** Idle keep-alive connections are closed after this long. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(50);

    /** Where a worker URL points: parsed once per URL, not per request. */
    public record Target(String host, int port, boolean ssl, String pathPrefix) {
    }

    private final Vertx vertx;
    private final DelayScheduler timers;
    private final HttpClientOptions options;
    private final PoolOptions pool;
    /** For calls from outside the instance's event loops. */
    private final HttpClient shared;
    private final Map<EventLoop, HttpClient> byLoop = new ConcurrentHashMap<>();
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
        this(vertx, connectTimeout, requestTimeout, idleTimeout, nonStreamAttemptTimeout, maxConnectionsPerWorker, tls,
                1);
    }

    /**
     * @param eventLoops the event loops requests arrive on (the server's): {@code maxConnectionsPerWorker} is split
     *                   over them
     */
    public UpstreamClient(Vertx vertx, Duration connectTimeout, Duration requestTimeout, Duration idleTimeout,
                          Duration nonStreamAttemptTimeout, int maxConnectionsPerWorker, TlsSettings tls,
                          int eventLoops) {
        this(vertx, connectTimeout, requestTimeout, idleTimeout, nonStreamAttemptTimeout, maxConnectionsPerWorker, tls,
                eventLoops, DelayScheduler.vertx(vertx));
    }

    /**
     * @param timers where the relays set their deadlines and idle limits ({@link #timers}), on {@code vertx}'s event
     *               loops
     */
    public UpstreamClient(Vertx vertx, Duration connectTimeout, Duration requestTimeout, Duration idleTimeout,
                          Duration nonStreamAttemptTimeout, int maxConnectionsPerWorker, TlsSettings tls,
                          int eventLoops, DelayScheduler timers) {
        if (nonStreamAttemptTimeout.isNegative() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout and nonStreamAttemptTimeout must be >= 0, were "
                    + idleTimeout + " and " + nonStreamAttemptTimeout);
        }
        this.vertx = vertx;
        this.timers = Objects.requireNonNull(timers, "timers");
        this.requestTimeout = requestTimeout;
        this.idleTimeout = idleTimeout;
        this.nonStreamAttemptTimeout = nonStreamAttemptTimeout;
        this.options = tls.client(new HttpClientOptions())
                .setKeepAlive(true)
                .setKeepAliveTimeout((int) IDLE_TIMEOUT.toSeconds())
                .setIdleTimeout(0)
                .setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .setDecompressionSupported(false);
        this.pool = new PoolOptions().setHttp1MaxSize(perLoop(maxConnectionsPerWorker, eventLoops));
        this.shared = vertx.createHttpClient(options, pool);
    }

    /** Connections per worker for each event loop's client: an even share, at least one. */
    static int perLoop(int maxConnectionsPerWorker, int eventLoops) {
        return Math.max(1, maxConnectionsPerWorker / Math.max(1, eventLoops));
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

    /** The calling event loop's client (created on first use); off the instance's event loops, a shared one. */
    public HttpClient client() {
        if (Vertx.currentContext() instanceof ContextInternal context && context.isEventLoopContext()
                && context.owner() == vertx) {
            return byLoop.computeIfAbsent(context.nettyEventLoop(), loop -> vertx.createHttpClient(options, pool));
        }
        return shared;
    }

    public Vertx vertx() {
        return vertx;
    }

    /** The timers the relays of this client's requests use, on its Vert.x instance's event loops. */
    public DelayScheduler timers() {
        return timers;
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
        byLoop.values().forEach(HttpClient::close);
        shared.close();
    }
}
