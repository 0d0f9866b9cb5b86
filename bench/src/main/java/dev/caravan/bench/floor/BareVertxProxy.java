package dev.caravan.bench.floor;

import java.util.concurrent.CountDownLatch;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

/**
 * The reference point of {@code it-tests/bench/one-connection-floor.sh}: the least a reverse proxy on the gateway's own
 * stack does (the same Vert.x, Netty and native epoll transport, the same JVM), with none of Caravan. Each event loop
 * has its server and its own keep-alive client to one upstream, as the gateway's do; a request is read whole, sent
 * upstream with its method, path and content type, and the answer relayed whole with its status and content type. No
 * routing, no Camel, no JSON, no metrics, no timeouts: what it adds to a request over the upstream's own latency is
 * the floor of any proxy built on this stack, on the machine it runs on.
 */
public final class BareVertxProxy extends AbstractVerticle {

    private final int port;
    private final int upstreamPort;
    private HttpClient client;

    private BareVertxProxy(int port, int upstreamPort) {
        this.port = port;
        this.upstreamPort = upstreamPort;
    }

    /** Usage: {@code BareVertxProxy PORT UPSTREAM_PORT [EVENT_LOOPS]} (default: 2 × cores, as Vert.x); runs until killed. */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int upstreamPort = Integer.parseInt(args[1]);
        int loops = args.length > 2 ? Integer.parseInt(args[2]) : VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE;
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops).setPreferNativeTransport(true));
        CountDownLatch listening = new CountDownLatch(1);
        vertx.deployVerticle(() -> new BareVertxProxy(port, upstreamPort), new DeploymentOptions().setInstances(loops))
                .onComplete(r -> {
                    if (r.failed()) {
                        System.err.println("bare proxy cannot listen on " + port + ": " + r.cause());
                        System.exit(1);
                    }
                    listening.countDown();
                });
        listening.await();
        System.out.println("bare Vert.x proxy on 127.0.0.1:" + port + " -> 127.0.0.1:" + upstreamPort + ", " + loops
                + " event loops, native transport " + vertx.isNativeTransportEnabled());
    }

    @Override
    public void start(Promise<Void> started) {
        client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setMaxPoolSize(64)
                .setTcpNoDelay(true).setDefaultHost("127.0.0.1").setDefaultPort(upstreamPort));
        vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port).setTcpNoDelay(true))
                .requestHandler(this::proxy)
                .listen().<Void>mapEmpty().onComplete(started);
    }

    private void proxy(HttpServerRequest request) {
        request.body().onSuccess(body -> client.request(request.method(), request.uri()).onSuccess(upstream -> {
            String type = request.getHeader("content-type");
            if (type != null) {
                upstream.putHeader("content-type", type);
            }
            upstream.send(body).onSuccess(answer -> answer.body().onSuccess(bytes -> {
                String answerType = answer.getHeader("content-type");
                if (answerType != null) {
                    request.response().putHeader("content-type", answerType);
                }
                request.response().setStatusCode(answer.statusCode()).end(bytes);
            }).onFailure(e -> request.response().reset())).onFailure(e -> badGateway(request));
        }).onFailure(e -> badGateway(request)));
    }

    private static void badGateway(HttpServerRequest request) {
        if (!request.response().headWritten()) {
            request.response().setStatusCode(502).end();
        }
    }
}
