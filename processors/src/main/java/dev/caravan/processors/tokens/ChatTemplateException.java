package dev.caravan.processors.tokens;

/**
 * A chat template refused the conversation ({@code raise_exception}) or failed to render it; the message is the
 * template's or names the failure. The engine answers such a request with 400, and so does the gateway.
 */
public final class ChatTemplateException extends IllegalArgumentException {

    public ChatTemplateException(String message) {
        super(message);
    }

    public ChatTemplateException(String message, Throwable cause) {
        super(message, cause);
    }
}
