package dev.caravan.tokens;

/**
 * A chat template refused the conversation ({@code raise_exception}) or failed to render it; the message is the
 * template's or names the failure. The engine answers such a request with 400, and so does the gateway.
 */
public final class ChatTemplateException extends IllegalArgumentException {

    private final boolean refused;

    /**
     * @param refused true when the template itself refused the conversation ({@code raise_exception}) or the model
     *                has no template: the engine would refuse the request too; false when rendering failed here
     */
    public ChatTemplateException(String message, boolean refused) {
        super(message);
        this.refused = refused;
    }

    /** True when the engine would refuse the request as well (its template raised, or it has none). */
    public boolean refused() {
        return refused;
    }
}
