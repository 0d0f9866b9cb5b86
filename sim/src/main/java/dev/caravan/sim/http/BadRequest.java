package dev.caravan.sim.http;

/** A client error with a message fit for the response body (answered 400 unless another 4xx is given). */
public final class BadRequest extends RuntimeException {

    private final int status;

    public BadRequest(String message) {
        this(400, message);
    }

    public BadRequest(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
