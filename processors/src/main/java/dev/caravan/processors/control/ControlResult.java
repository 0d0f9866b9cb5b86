package dev.caravan.processors.control;

/**
 * The outcome of one {@link ControlCall}.
 *
 * @param call   what was called
 * @param status the HTTP status, or -1 when the call failed without a response
 * @param body   the response body (buffered; control responses are small), or null
 * @param error  why it failed without a response, or null
 */
public record ControlResult(ControlCall call, int status, String body, String error) {

    /** A 2xx response arrived. */
    public boolean ok() {
        return status >= 200 && status < 300;
    }

    /** A one-line reason for failure reports. */
    public String reason() {
        if (error != null) {
            return error;
        }
        return "HTTP " + status;
    }
}
