package dev.caravan.components.http;

import java.util.regex.Pattern;

/**
 * The gateway's HTTP server could not bind its socket: the message names the address and the cause in one line, e.g.
 * {@code Caravan gateway cannot listen on 0.0.0.0:30000: Address already in use}. Thrown from the server's start, so
 * {@code CamelContext.start()} fails with it (possibly wrapped; {@link #find} digs it out).
 */
public final class ListenException extends IllegalStateException {

    /** The native (epoll) transport's prefix to a system call's error: {@code bind(..) failed with error(-98): }. */
    private static final Pattern NATIVE_CALL =
            Pattern.compile("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ");

    private final String address;

    public ListenException(String address, Throwable cause) {
        super("Caravan gateway cannot listen on " + address + ": " + describe(cause), cause);
        this.address = address;
    }

    /** {@code host:port} as configured. */
    public String address() {
        return address;
    }

    private static String describe(Throwable cause) {
        if (cause == null) {
            return "unknown cause";
        }
        String message = cause.getMessage();
        if (message == null || message.isBlank()) {
            return cause.getClass().getSimpleName();
        }
        // the native (epoll) transport names the system call first: "bind(..) failed with error(-98): Address already
        // in use"; Java NIO says only "Address already in use". The reason is what a user needs, either way.
        return NATIVE_CALL.matcher(message).replaceFirst("");
    }


    /** The {@link ListenException} in {@code failure}'s cause chain, or null. */
    public static ListenException find(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ListenException e) {
                return e;
            }
        }
        return null;
    }
}
