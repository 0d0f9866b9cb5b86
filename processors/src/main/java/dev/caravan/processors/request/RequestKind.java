package dev.caravan.processors.request;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import dev.caravan.policies.EngineRuntime;

/**
 * The inference APIs the gateway routes, with the path each is sent to on a worker and the prefix of the request ids it
 * generates (SGLang's: {@code chatcmpl-}, {@code cmpl-}, {@code resp-}, ...). The ingress route names the kind in
 * {@code caravanRequestKind}, so a route may expose an API under any path.
 *
 * <p>Where SGLang and vLLM serve an API under different paths, the kind knows both ({@link #upstreamPath(EngineRuntime)}):
 * vLLM's {@code /tokenize}, {@code /detokenize} and {@code /classify} against SGLang's {@code /v1/...}. Rerank goes to
 * {@code /v1/rerank}, which both serve, whichever path the client used ({@code /rerank} or {@code /v1/rerank}), as
 * SGLang's router does.
 */
public enum RequestKind {
    CHAT("/v1/chat/completions", null, "chatcmpl-"),
    COMPLETIONS("/v1/completions", null, "cmpl-"),
    GENERATE("/generate", null, "gnt-"),
    EMBEDDINGS("/v1/embeddings", null, "embd-"),
    RERANK("/v1/rerank", null, "req-"),
    CLASSIFY("/v1/classify", "/classify", "req-"),
    TOKENIZE("/v1/tokenize", "/tokenize", "req-"),
    DETOKENIZE("/v1/detokenize", "/detokenize", "req-"),
    RESPONSES("/v1/responses", null, "resp-");

    private final String upstreamPath;
    private final String vllmPath;
    private final String idPrefix;
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** values() copies its array on each call; parse runs on every request. */
    private static final RequestKind[] KINDS = values();

    RequestKind(String upstreamPath, String vllmPath, String idPrefix) {
        this.upstreamPath = upstreamPath;
        this.vllmPath = vllmPath == null ? upstreamPath : vllmPath;
        this.idPrefix = idPrefix;
    }

    /** The path on an SGLang engine (and the default before a worker is chosen). */
    public String upstreamPath() {
        return upstreamPath;
    }

    /** The path on a worker served by {@code runtime}. */
    public String upstreamPath(EngineRuntime runtime) {
        return runtime == EngineRuntime.VLLM ? vllmPath : upstreamPath;
    }

    /** True when SGLang and vLLM serve this API under different paths. */
    public boolean pathDependsOnEngine() {
        return !vllmPath.equals(upstreamPath);
    }

    public String idPrefix() {
        return idPrefix;
    }

    /** The name used in routes and metrics: {@code chat}, {@code completions}, {@code generate}, ... */
    public String wireName() {
        return wireName;
    }

    /**
     * @throws IllegalArgumentException naming the bad value (a route configuration error)
     */
    public static RequestKind parse(Object value) {
        if (value instanceof RequestKind k) {
            return k;
        }
        if (value != null) {
            String text = value.toString();
            for (RequestKind k : KINDS) {
                if (k.wireName.equals(text)) { // what the routes set; several steps parse it per request
                    return k;
                }
            }
            String trimmed = text.trim();
            for (RequestKind k : KINDS) {
                if (k.wireName.equalsIgnoreCase(trimmed)) {
                    return k;
                }
            }
        }
        throw new IllegalArgumentException("caravanRequestKind must be one of " + Arrays.stream(values())
                .map(RequestKind::wireName).collect(Collectors.joining(", ")) + ", was '" + value + "'");
    }
}
