package dev.caravan.processors.error;

/**
 * Every error the gateway itself answers with: HTTP status plus the snake_case code that goes into the JSON body's
 * {@code error.code} and the {@code X-Caravan-Error-Code} header (SGLang's shape and codes where SGLang has one).
 */
public enum GatewayError {
    INVALID_JSON(400, "invalid_json"),
    INVALID_REQUEST(400, "invalid_request"),
    MODEL_REQUIRED(400, "model_required"),
    /** The bytes are not a valid HTTP/1.x request (bad request line, header syntax, ...); no route runs. */
    MALFORMED_HTTP(400, "malformed_http"),
    UNAUTHORIZED(401, "invalid_api_key"),
    NOT_FOUND(404, "not_found"),
    MODEL_NOT_FOUND(404, "model_not_found"),
    WORKER_NOT_FOUND(404, "worker_not_found"),
    /** A Responses API id this gateway did not see stored, or whose worker has left. */
    RESPONSE_NOT_FOUND(404, "response_not_found"),
    METHOD_NOT_ALLOWED(405, "method_not_allowed"),
    QUEUE_TIMEOUT(408, "queue_timeout"),
    WORKER_ALREADY_EXISTS(409, "worker_already_exists"),
    PAYLOAD_TOO_LARGE(413, "payload_too_large"),
    /** The request line (method, URI, version) is longer than the HTTP server accepts; no route runs. */
    URI_TOO_LONG(414, "uri_too_long"),
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type"),
    QUEUE_FULL(429, "queue_full"),
    RATE_LIMITED(429, "rate_limited"),
    /** Over the tenant's own rate limit (the tenants file); OpenAI's code, with {@code Retry-After} and x-ratelimit-*. */
    TENANT_RATE_LIMITED(429, "rate_limit_exceeded"),
    /** The request headers are larger than the HTTP server accepts; no route runs. */
    HEADERS_TOO_LARGE(431, "headers_too_large"),
    INTERNAL(500, "internal_error"),
    UPSTREAM_FAILED(502, "upstream_error"),
    /** P/D: the prefill leg failed (5xx or no response); the decode leg was cancelled. */
    PREFILL_FAILED(502, "prefill_server_error"),
    /** P/D: the decode leg failed without a response. */
    DECODE_FAILED(502, "decode_server_error"),
    NO_AVAILABLE_WORKERS(503, "no_available_workers"),
    SHUTTING_DOWN(503, "shutting_down"),
    /** P/D: no available prefill or no available decode worker. */
    SERVER_SELECTION_FAILED(503, "server_selection_failed"),
    UPSTREAM_TIMEOUT(504, "upstream_timeout");

    private final int status;
    private final String code;

    GatewayError(int status, String code) {
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** An exception carrying this error and a message for the client. */
    public GatewayException exception(String message) {
        return new GatewayException(this, message);
    }
}
