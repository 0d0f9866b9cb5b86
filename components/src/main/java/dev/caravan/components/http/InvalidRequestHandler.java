package dev.caravan.components.http;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers requests that failed HTTP decoding — headers over the server's {@code maxHeaderSize} (431), a request line
 * over its {@code maxInitialLineLength} (414), anything else Netty's decoder rejects (400) — with the gateway's JSON
 * error body instead of Vert.x's bare status line, and reports each to the {@link RequestObserver} under
 * {@link RouterErrorHandlers#UNMATCHED} (no route ran).
 *
 * <p>Mirrors {@code HttpServerRequest.DEFAULT_INVALID_REQUEST_HANDLER}: the same status choice, and the connection is
 * closed after the response, because the decoder cannot tell where the next request would start. Install it with
 * {@code HttpServer.invalidRequestHandler} before the server listens (Vert.x reads it only then), as
 * {@link GatewayHttpServer} does. Runs on the connection's event loop and does not block.
 */
public final class InvalidRequestHandler implements Handler<HttpServerRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(InvalidRequestHandler.class);

    private final RequestObserver observer;
    private final int maxInitialLineLength;
    private final int maxHeaderSize;

    /**
     * @param options  the options of the server the handler is installed on (its limits go into the messages)
     * @param observer told about every answered request
     */
    public InvalidRequestHandler(HttpServerOptions options, RequestObserver observer) {
        this.observer = observer;
        this.maxInitialLineLength = options.getMaxInitialLineLength();
        this.maxHeaderSize = options.getMaxHeaderSize();
    }

    @Override
    public void handle(HttpServerRequest request) {
        long start = System.nanoTime();
        Throwable cause = request.decoderResult().cause();
        HttpError error;
        String message;
        if (cause instanceof TooLongHttpLineException) {
            error = HttpError.URI_TOO_LONG;
            message = "request line exceeds the gateway's limit of " + maxInitialLineLength + " bytes";
        } else if (cause instanceof TooLongHttpHeaderException) {
            error = HttpError.HEADERS_TOO_LARGE;
            message = "request headers exceed the gateway's limit of " + maxHeaderSize + " bytes";
        } else {
            error = HttpError.MALFORMED_HTTP;
            message = "the request is not valid HTTP/1.1";
        }
        LOG.debug("Invalid HTTP request from {} answered {}: {}", request.remoteAddress(), error.status(),
                cause == null ? "no cause" : cause.toString());
        HttpServerResponse response = request.response();
        response.putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        ResponseWriter.writeError(response, error, message).onComplete(done -> response.close());
        observer.onRequestComplete(null, RouterErrorHandlers.UNMATCHED, error.status(), System.nanoTime() - start);
    }
}
