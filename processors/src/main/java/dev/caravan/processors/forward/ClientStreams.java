package dev.caravan.processors.forward;

import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.Exchange;

import dev.caravan.components.http.ErrorBody;
import dev.caravan.processors.error.GatewayError;

/**
 * How a relay ends the client's response when the upstream stream it copies stops early: shared by the plain relay
 * ({@link StreamRelay}) and the P/D decode relay, so both tell clients the same thing. Call on the response's event loop.
 */
public final class ClientStreams {

    private ClientStreams() {
    }

    /**
     * A limit passed while streaming: an SSE response ends with a final OpenAI-style error event (clients raise it), so
     * the client knows the answer is incomplete; any other body cannot say so and the connection is reset. Nothing
     * happens when the response has already ended.
     */
    public static void endOnTimeout(HttpServerResponse client, String reason) {
        if (client.ended()) {
            return;
        }
        String contentType = client.headers().get("content-type");
        if (contentType != null && contentType.startsWith("text/event-stream")) {
            client.end(Buffer.buffer("data: " + ErrorBody.json(GatewayError.UPSTREAM_TIMEOUT.status(),
                    GatewayError.UPSTREAM_TIMEOUT.code(), reason) + "\n\n"));
        } else {
            client.reset();
        }
    }

    /** Records that the client left mid-response: the response counts as committed, with status 499. */
    public static void markClientClosed(Exchange exchange) {
        RESPONSE_COMMITTED.set(exchange, true);
        RESPONSE_STATUS.set(exchange, 499);
    }
}
