package dev.caravan.components.http;

/**
 * The errors the HTTP layer answers itself, before or around a route: HTTP status plus the snake_case code that goes
 * into the JSON body's {@code error.code} and the {@value ErrorBody#ERROR_CODE_HEADER} header. The gateway's own error
 * table has an entry of the same name, status and code for each ({@code GatewayError}).
 */
public enum HttpError {
    /** A request path Vert.x Web cannot decode. */
    INVALID_REQUEST(400, "invalid_request"),
    /** The bytes are not a valid HTTP/1.x request (bad request line, header syntax, ...); no route runs. */
    MALFORMED_HTTP(400, "malformed_http"),
    NOT_FOUND(404, "not_found"),
    METHOD_NOT_ALLOWED(405, "method_not_allowed"),
    PAYLOAD_TOO_LARGE(413, "payload_too_large"),
    /** The request line (method, URI, version) is longer than the server accepts; no route runs. */
    URI_TOO_LONG(414, "uri_too_long"),
    /** The request headers are larger than the server accepts; no route runs. */
    HEADERS_TOO_LARGE(431, "headers_too_large"),
    INTERNAL(500, "internal_error"),
    /** The consumer is suspended: no route takes requests. */
    NO_AVAILABLE_WORKERS(503, "no_available_workers");

    private final int status;
    private final String code;

    HttpError(int status, String code) {
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
