package dev.caravan.processors.metrics;

import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.auth.BearerKey;
import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code checkMetricsAccess}, ahead of {@code scrapeMetrics} on the gateway's own port. {@code GET /metrics}
 * there is Caravan's addition (SGLang's router serves metrics only on its metrics port, {@code --prometheus-port}), and
 * {@code --port-metrics} decides it:
 * <ul>
 *   <li>{@value #GUARDED}: with {@code --admin-api-key} or {@code --api-key} the scrape must carry
 *       {@code Authorization: Bearer <either key>}, else 401 {@code invalid_api_key}; a gateway without keys serves it
 *       as openly as everything else;</li>
 *   <li>{@value #OFF}: 404 {@code not_found}; scrape the metrics listener instead.</li>
 * </ul>
 * Every key is compared, in constant time ({@link BearerKey}), so the answer's timing does not tell which one matched.
 */
public final class CheckMetricsAccessProcessor implements Processor {

    /** {@code --port-metrics guarded}: served on the gateway's port, behind its keys when it has any. */
    public static final String GUARDED = "guarded";
    /** {@code --port-metrics off}: not served on the gateway's port. */
    public static final String OFF = "off";

    private final boolean served;
    private final List<BearerKey> keys;

    /**
     * @param served   {@value #GUARDED} (true) or {@value #OFF} (false)
     * @param adminKey the admin key, or null
     * @param apiKey   the client key, or null
     */
    public CheckMetricsAccessProcessor(boolean served, String adminKey, String apiKey) {
        this.served = served;
        this.keys = Stream.of(adminKey, apiKey).filter(Objects::nonNull).map(BearerKey::new).toList();
    }

    @Override
    public void process(Exchange exchange) {
        if (!served) {
            throw GatewayError.NOT_FOUND.exception("/metrics is not served on this port (--port-metrics off): scrape "
                    + "the metrics listener (--prometheus-port)");
        }
        if (keys.isEmpty()) {
            return;
        }
        String authorization = exchange.getIn().getHeader("Authorization", String.class);
        boolean matched = false;
        for (BearerKey key : keys) {
            matched |= key.matches(authorization);
        }
        if (!matched) {
            throw GatewayError.UNAUTHORIZED.exception("missing or invalid API key for /metrics (send Authorization: "
                    + "Bearer <admin or API key>)");
        }
    }
}
