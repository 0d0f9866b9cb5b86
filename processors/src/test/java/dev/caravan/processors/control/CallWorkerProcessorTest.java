package dev.caravan.processors.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.dns.AddressResolverOptions;
import io.vertx.core.http.HttpServer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;

/**
 * Control calls against a loopback server reached as {@code worker_a} (a host {@link java.net.URI} cannot parse): the
 * test's Vert.x maps the name to 127.0.0.1 through its resolver's hosts entries, so no {@code /etc/hosts} is touched.
 * {@code /echo} answers with what it received, {@code /down} 503, {@code /hang} never.
 */
class CallWorkerProcessorTest {

    private static final CamelContext CAMEL = new DefaultCamelContext();
    private static Vertx vertx;
    private static HttpServer server;

    @BeforeAll
    static void start() throws Exception {
        CAMEL.start();
        vertx = Vertx.vertx(new VertxOptions().setAddressResolverOptions(new AddressResolverOptions()
                .setHostsValue(Buffer.buffer("127.0.0.1 worker_a\n"))));
        server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
            switch (req.path()) {
                case "/prefix/echo" -> req.response().end(req.method() + " " + req.uri() + " host=" + req.getHeader("Host")
                        + " auth=" + req.getHeader("Authorization") + " type=" + req.getHeader("Content-Type")
                        + " body=" + body);
                case "/prefix/down" -> req.response().setStatusCode(503).end("overloaded");
                default -> { } // hang
            }
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        CAMEL.close();
    }

    private static Worker workerA() {
        return Worker.builder("http://worker_a:" + server.actualPort() + "/prefix").build();
    }

    /** Prepares and runs one call as the call-workers route does; returns the finished sub-exchange. */
    private static Exchange call(ControlCall call, Duration timeout) {
        Exchange e = new DefaultExchange(CAMEL);
        e.getMessage().setBody(call);
        e.getMessage().setHeader("X-Client-Header", "must not leak");
        new PrepareControlCallProcessor("gw-key").process(e);
        AtomicReference<Boolean> done = new AtomicReference<>();
        assertThat(new CallWorkerProcessor(vertx, timeout).process(e, done::set)).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
        return e;
    }

    @Test
    void callsAWorkerWhoseHostHasAnUnderscoreUnderItsPathPrefix() {
        Worker w = workerA();
        Exchange e = call(new ControlCall(w, "GET", "/echo", null), Duration.ofSeconds(2));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeaders()).containsOnlyKeys(Exchange.HTTP_RESPONSE_CODE);
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(200);
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("GET /prefix/echo host=worker_a:"
                + server.actualPort() + " auth=Bearer gw-key type=null body=");
    }

    @Test
    void sendsTheBodyWithItsContentTypeAndTheWorkersOwnKey() {
        Worker w = Worker.builder(workerA().url()).apiKey("worker-key").build();
        Exchange e = call(new ControlCall(w, "POST", "/echo", "{\"x\":1}"), Duration.ofSeconds(2));
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("POST /prefix/echo host=worker_a:"
                + server.actualPort() + " auth=Bearer worker-key type=application/json body={\"x\":1}");
    }

    @Test
    void anErrorStatusIsAnAnswerNotAFailure() {
        Exchange e = call(new ControlCall(workerA(), "POST", "/down", null), Duration.ofSeconds(2));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(503);
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("overloaded");
    }

    @Test
    void aRefusedConnectionFailsTheCall() {
        Exchange e = call(new ControlCall(Worker.builder("http://127.0.0.1:1").build(), "GET", "/get_load", null),
                Duration.ofSeconds(2));
        assertThat(e.getException()).hasMessageContaining("Connection refused");
    }

    @Test
    void aHungWorkerFailsTheCallAtTheTimeout() {
        Worker w = workerA();
        Exchange e = call(new ControlCall(w, "GET", "/hang", null), Duration.ofMillis(200));
        assertThat(e.getException()).isInstanceOf(TimeoutException.class)
                .hasMessage("no answer from " + w.url() + "/hang within 200 ms");
    }

    @Test
    void needsThePreparedCallAndAPositiveTimeout() {
        Exchange e = new DefaultExchange(CAMEL);
        AtomicReference<Boolean> done = new AtomicReference<>();
        assertThat(new CallWorkerProcessor(vertx, Duration.ofSeconds(1)).process(e, done::set)).isTrue();
        assertThat(done.get()).isTrue();
        assertThat(e.getException()).hasMessage("callWorker expects prepareControlCall to run first");
        assertThatThrownBy(() -> new CallWorkerProcessor(vertx, Duration.ZERO))
                .hasMessage("control call timeout must be > 0, was PT0S");
    }
}
