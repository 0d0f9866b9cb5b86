package dev.caravan.components.http;

import java.util.List;
import java.util.Set;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.handler.CorsHandler;

/**
 * {@code --cors-allowed-origins}, as SGLang's router applies it (tower-http's CORS layer, max age one hour):
 * <ul>
 *   <li>no origins: any origin, any method, any request header (the browser's preflight list is echoed), any response
 *       header exposed;</li>
 *   <li>a list: those origins only, {@code GET}/{@code POST}/{@code OPTIONS}, request headers {@code Content-Type} and
 *       {@code Authorization}, {@code X-Request-Id} exposed. A browser request from another origin is answered 403
 *       (tower-http answers it without CORS headers, which the browser then blocks).</li>
 * </ul>
 * Requests without an {@code Origin} header (every non-browser client) are not affected. Preflight {@code OPTIONS}
 * requests are answered by the handler itself.
 */
public final class CorsPolicy {

    static final int MAX_AGE_SECONDS = 3600;

    private CorsPolicy() {
    }

    /** The handler for these origins (empty: any). */
    public static CorsHandler handler(List<String> origins) {
        if (origins.isEmpty()) {
            return CorsHandler.create()
                    .allowedMethods(Set.of(HttpMethod.GET, HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE,
                            HttpMethod.PATCH, HttpMethod.HEAD, HttpMethod.OPTIONS))
                    .exposedHeader("*").maxAgeSeconds(MAX_AGE_SECONDS);
        }
        return CorsHandler.create().addOrigins(List.copyOf(origins))
                .allowedMethods(Set.of(HttpMethod.GET, HttpMethod.POST, HttpMethod.OPTIONS))
                .allowedHeaders(Set.of("Content-Type", "Authorization")).exposedHeader("X-Request-Id")
                .maxAgeSeconds(MAX_AGE_SECONDS);
    }
}
