package dev.caravan.processors.request;

import java.util.Locale;

/**
 * The inference APIs the gateway routes, with the path each is sent to on a worker and the prefix of the request ids it
 * generates (SGLang's: {@code chatcmpl-}, {@code cmpl-}, ...). The ingress route names the kind in
 * {@code caravanRequestKind}, so a route may expose an API under any path.
 */
public enum RequestKind {
    CHAT("/v1/chat/completions", "chatcmpl-"),
    COMPLETIONS("/v1/completions", "cmpl-"),
    GENERATE("/generate", "gnt-"),
    EMBEDDINGS("/v1/embeddings", "embd-");

    private final String upstreamPath;
    private final String idPrefix;

    RequestKind(String upstreamPath, String idPrefix) {
        this.upstreamPath = upstreamPath;
        this.idPrefix = idPrefix;
    }

    public String upstreamPath() {
        return upstreamPath;
    }

    public String idPrefix() {
        return idPrefix;
    }

    /** The name used in routes and metrics: {@code chat}, {@code completions}, {@code generate}, {@code embeddings}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException naming the bad value (a route configuration error)
     */
    public static RequestKind parse(Object value) {
        if (value instanceof RequestKind k) {
            return k;
        }
        if (value != null) {
            for (RequestKind k : values()) {
                if (k.wireName().equalsIgnoreCase(value.toString().trim())) {
                    return k;
                }
            }
        }
        throw new IllegalArgumentException("caravanRequestKind must be one of chat, completions, generate, embeddings, was '"
                + value + "'");
    }
}
