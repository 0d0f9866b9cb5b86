package dev.caravan.components.http;

/**
 * The exchange properties the HTTP consumer and its response writer share with the routes' steps, by name. The
 * gateway's steps read and write them as typed properties of the same names ({@code CaravanExchangeProperties}).
 */
public final class HttpExchangeProperties {

    /** {@link System#nanoTime()} when the request arrived (a {@code Long}), set by the consumer. */
    public static final String START_NANOS = "caravanStartNanos";
    /** The HTTP status sent to the client, once known (an {@code Integer}). */
    public static final String RESPONSE_STATUS = "caravanResponseStatus";
    /** {@code Boolean.TRUE} once a streaming step wrote the response head: the writer leaves the response alone. */
    public static final String RESPONSE_COMMITTED = "caravanResponseCommitted";

    private HttpExchangeProperties() {
    }
}
