package dev.caravan.processors.flow;

import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_HEADERS;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;

import java.util.LinkedHashMap;
import java.util.Map;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.components.http.RequestCompletion;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.admission.FlowKey;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.forward.OutputMeter;

/**
 * Route step {@code limitTenantRate} (inference routes, before {@code admitRequest}): the tenant's own rate limits,
 * inside the global ones. It estimates the prompt's tokens (its routing text, {@value #CHARS_PER_TOKEN} characters a
 * token), takes one request and the estimate from the tenant's budgets ({@link TenantRateLimiter}), and otherwise
 * answers 429 {@code rate_limit_exceeded} with {@code Retry-After} and OpenAI's {@code x-ratelimit-*} headers. A
 * request that passes carries the same headers, with what remains after it, on whatever response it gets
 * ({@code RESPONSE_HEADERS}: streamed ones before the first byte), as OpenAI sends them on every response.
 *
 * <p>With replica sync, a request whose replica's share of the tenant's fleet-wide requests budget is spent while more
 * is on its way ({@link RateVerdict#PENDING}) waits for it without holding a thread, then asks once more on its event
 * loop; still pending then, it is refused like any other.
 *
 * <p>Its cost is a {@link TenantCharge}: output charged as the response streams (the exchange's {@code OutputMeter},
 * for a tenant with an output limit), settled against {@code usage} once when the exchange completes, after every
 * retry and both P/D legs.
 *
 * <p>Reads {@code Tenant.PROPERTY}, {@code ROUTING_TEXT}; writes {@code FlowKey.COST} (the estimate, which admission
 * charges to the tenant's fair share), {@code RESPONSE_HEADERS}, {@code OutputMeter.PROPERTY}.
 */
public final class LimitTenantRateProcessor extends AsyncProcessorSupport {

    /** Characters of text per prompt token in the estimate (the usual figure for English with BPE tokenizers). */
    public static final int CHARS_PER_TOKEN = 4;

    private final TenantRateLimiter limiter;
    private final AdmissionController admission;
    private final TenantMetrics metrics;

    public LimitTenantRateProcessor(TenantRateLimiter limiter, AdmissionController admission, TenantMetrics metrics) {
        this.limiter = limiter;
        this.admission = admission;
        this.metrics = metrics;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Tenant tenant = Tenant.PROPERTY.get(exchange, Tenant.OTHER);
        String text = ROUTING_TEXT.get(exchange);
        long estimate = text == null ? 0 : (text.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
        RateVerdict verdict = limiter.acquire(tenant, estimate, true);
        if (!verdict.pending()) {
            apply(exchange, tenant, estimate, verdict);
            callback.done(true);
            return true;
        }
        Context context = Vertx.currentContext();
        limiter.whenFleetAnswers(tenant, () -> {
            Runnable again = () -> {
                apply(exchange, tenant, estimate, limiter.acquire(tenant, estimate, false));
                callback.done(false);
            };
            if (context == null) {
                again.run();
            } else {
                context.runOnContext(v -> again.run());
            }
        });
        return false;
    }

    private void apply(Exchange exchange, Tenant tenant, long estimate, RateVerdict verdict) {
        if (!verdict.allowed()) {
            metrics.onThrottled(tenant.flowKey(), verdict.limit());
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Retry-After", Long.toString(verdict.retryAfterSeconds()));
            headers.putAll(verdict.headers());
            exchange.setException(GatewayError.TENANT_RATE_LIMITED.exception("rate limit reached for tenant "
                    + tenant.name() + " on " + verdict.limit().replace('_', ' ') + " per minute; retry after "
                    + verdict.retryAfterSeconds() + " s").withHeaders(headers));
            return;
        }
        FlowKey.COST.set(exchange, estimate);
        if (!verdict.headers().isEmpty()) {
            RESPONSE_HEADERS.set(exchange, verdict.headers());
        }
        TenantCharge charge = new TenantCharge(limiter, admission, tenant, estimate);
        if (tenant.limits().outputTokensPerMinute() != TenantLimits.UNLIMITED) {
            OutputMeter.PROPERTY.set(exchange, charge);
        }
        RequestCompletion.onDone(exchange, charge::settle);
    }
}
