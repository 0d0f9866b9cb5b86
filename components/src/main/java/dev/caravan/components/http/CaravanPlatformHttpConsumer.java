package dev.caravan.components.http;

import java.util.List;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A platform-http consumer that runs its route through Camel's <em>asynchronous</em> routing engine, so an exchange
 * waiting on an upstream stream holds no thread.
 *
 * <p>Why: Camel 4.18's {@code VertxPlatformHttpConsumer} runs every exchange with
 * {@code vertx.executeBlocking(() -> getProcessor().process(exchange))}, the <em>synchronous</em> API, which parks the
 * Vert.x worker thread until the route finishes; a streaming response therefore pins one worker thread for its whole
 * length (1,000 streams = 1,000 threads). This subclass overrides only {@code handleRequest}: it starts the route with
 * {@code getAsyncProcessor().process(exchange, callback)}. When a step goes asynchronous (the forward step returns
 * {@code false} while it pipes the upstream response), the starting thread returns at once; the step calls the callback
 * from the event loop when the stream ends, and only then is the response written (if a step has not already written
 * it) and the unit of work completed. So in-flight streams stay visible as in-flight exchanges (graceful shutdown waits
 * for them) without a thread each.
 *
 * <p>Where the route starts: with {@code dispatchOnEventLoop} (the gateway's default) directly on the connection's event
 * loop — no thread hop, and every step must be non-blocking, as the built-in ones are (parse, routing text, policy
 * decision: microseconds of CPU). Otherwise on a Vert.x worker thread ({@code executeBlocking}), held only for the
 * synchronous steps and then released, so a blocking step a user adds to a YAML route cannot stall the event loop.
 *
 * <p>Writing: {@link ResponseWriter} writes the Camel message ({@code exchange.getMessage()}; exchanges are
 * {@code InOnly}, so no route copies it into an out message) unless the response is already committed. Errors that
 * escape the route become a JSON 500 without a stack trace.
 *
 * <p>The {@link RequestObserver} (the request metrics) is told when the request completes ({@link RequestCompletion}):
 * for an answer the relay streamed, when its response ended, just before Camel's route end; otherwise after the
 * response was written, as the unit of work completes.
 */
public class CaravanPlatformHttpConsumer extends VertxPlatformHttpConsumer {

    private static final Logger LOG = LoggerFactory.getLogger(CaravanPlatformHttpConsumer.class);

    private final RequestObserver observer;
    private final boolean dispatchOnEventLoop;
    private final String endpointPath;
    private final RequestMessageFactory messages;

    public CaravanPlatformHttpConsumer(PlatformHttpEndpoint endpoint, Processor processor,
                                       List<Handler<RoutingContext>> handlers, String routerName,
                                       RequestObserver observer, boolean dispatchOnEventLoop) {
        this(endpoint, processor, handlers, routerName, observer, dispatchOnEventLoop, RequestMessageFactory.CAMEL);
    }

    /**
     * @param messages makes each request's Camel message, which platform-http then fills
     */
    public CaravanPlatformHttpConsumer(PlatformHttpEndpoint endpoint, Processor processor,
                                       List<Handler<RoutingContext>> handlers, String routerName,
                                       RequestObserver observer, boolean dispatchOnEventLoop,
                                       RequestMessageFactory messages) {
        super(endpoint, processor, handlers, routerName);
        this.observer = observer == null ? RequestObserver.NONE : observer;
        this.dispatchOnEventLoop = dispatchOnEventLoop;
        this.messages = messages;
        this.endpointPath = endpoint.getPath();
    }

    @Override
    protected void handleRequest(RoutingContext ctx) {
        long start = System.nanoTime();
        if (isSuspended()) {
            ResponseWriter.writeError(ctx, HttpError.NO_AVAILABLE_WORKERS, "the gateway is suspended");
            observer.onRequestComplete(null, endpointPath, 503, System.nanoTime() - start);
            return;
        }
        Context eventLoop = ctx.vertx().getOrCreateContext();
        Exchange exchange = createExchange(false);
        // InOnly: the steps read and write exchange.getMessage(), which is then the one message there is. InOut (what
        // Camel's own consumer sets) makes every route's pipeline copy the message, headers and all, into a new out
        // message at its end (ExchangeHelper.copyResults), four routes per request, for a reply that is the same
        // message; ResponseWriter writes whichever exchange.getMessage() is.
        exchange.setPattern(ExchangePattern.InOnly);
        // Camel's consumer fills a message it finds in place of creating its own
        HttpMessage message = messages.create(exchange, ctx.request(), ctx.response());
        if (message != null) {
            exchange.setIn(message);
        }
        exchange.getProperties().put(HttpExchangeProperties.START_NANOS, start);
        processHttpRequest(exchange, ctx).onComplete(populated -> {
            if (populated.failed()) {
                finish(exchange, ctx, populated.cause(), start);
                return;
            }
            if (dispatchOnEventLoop) {
                route(exchange, ctx, eventLoop, start);
            } else {
                ctx.vertx().executeBlocking(() -> {
                    route(exchange, ctx, eventLoop, start);
                    return null;
                }, false).onFailure(e -> finish(exchange, ctx, e, start));
            }
        });
    }

    private void route(Exchange exchange, RoutingContext ctx, Context eventLoop, long start) {
        try {
            createUoW(exchange);
        } catch (Exception e) {
            finish(exchange, ctx, e, start);
            return;
        }
        // reported when the request completes: for a relayed answer when its response ends, before the route does
        RequestCompletion.onDone(exchange, done -> report(done, ctx, start));
        // The callback may run on this thread (route finished synchronously) or later on whatever thread completes the
        // last asynchronous step; writing always happens on the connection's event loop.
        getAsyncProcessor().process(exchange, doneSync -> {
            if (Context.isOnEventLoopThread() && ctx.vertx().getOrCreateContext() == eventLoop) {
                complete(exchange, ctx, start);
            } else {
                eventLoop.runOnContext(v -> complete(exchange, ctx, start));
            }
        });
    }

    private void complete(Exchange exchange, RoutingContext ctx, long start) {
        ResponseWriter.write(ctx, exchange).onComplete(written -> {
            if (written.failed()) {
                LOG.debug("Writing the response of {} failed: {}", endpointPath, written.cause().toString());
            }
            done(exchange, ctx, start);
        });
    }

    private void finish(Exchange exchange, RoutingContext ctx, Throwable failure, long start) {
        LOG.warn("Request to {} failed before its route ran: {}", endpointPath, failure.toString());
        if (!ctx.response().headWritten()) {
            ResponseWriter.writeError(ctx, HttpError.INTERNAL, "the gateway could not process the request");
            exchange.getProperties().put(HttpExchangeProperties.RESPONSE_STATUS, HttpError.INTERNAL.status());
        }
        done(exchange, ctx, start);
    }

    /** Completes the exchange: its unit of work runs the request's completion, the report included. */
    private void done(Exchange exchange, RoutingContext ctx, long start) {
        if (exchange.getUnitOfWork() != null) {
            doneUoW(exchange);
        } else {
            report(exchange, ctx, start);
        }
        releaseExchange(exchange, false);
    }

    private void report(Exchange exchange, RoutingContext ctx, long start) {
        Integer status = exchange.getProperty(HttpExchangeProperties.RESPONSE_STATUS, Integer.class);
        int code = status != null ? status : ctx.response().getStatusCode();
        try {
            observer.onRequestComplete(exchange, endpointPath, code, System.nanoTime() - start);
        } catch (RuntimeException e) {
            LOG.warn("Request observer failed: {}", e.toString());
        }
    }
}
