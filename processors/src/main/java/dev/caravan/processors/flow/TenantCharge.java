package dev.caravan.processors.flow;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.camel.Exchange;

import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.admission.AdmissionTicket;
import dev.caravan.processors.forward.OutputMeter;
import dev.caravan.processors.forward.Usage;

/**
 * What one request costs its tenant, from {@code limitTenantRate} to the exchange's completion: the prompt's estimate
 * (taken at admission), the output as it streams ({@link OutputMeter}: the relays report the output so far, chunk by
 * chunk, and the growth is taken from the tenant's output budget at once), and the settlement against {@code usage}
 * when the exchange completes — after every retry and both P/D legs, so a request is charged once.
 *
 * <p>Settlement: the prompt estimate is corrected to the prompt tokens {@code usage} reported (kept when it reported
 * none, given back when admission never let the request in); the output charged while streaming is corrected to the
 * output {@code usage} reported (kept when none); both real counts go to the tenant's fair share in the admission
 * queue. Thread-safe: chunks arrive on an event loop, completion on whichever thread completes the exchange; output
 * reported after settlement is ignored.
 */
final class TenantCharge implements OutputMeter {

    private final TenantRateLimiter limiter;
    private final AdmissionController admission;
    private final Tenant tenant;
    private final long estimate;
    private final AtomicLong streamed = new AtomicLong();
    private final AtomicBoolean settled = new AtomicBoolean();

    TenantCharge(TenantRateLimiter limiter, AdmissionController admission, Tenant tenant, long estimate) {
        this.limiter = limiter;
        this.admission = admission;
        this.tenant = tenant;
        this.estimate = estimate;
    }

    @Override
    public void outputSoFar(long tokens) {
        long before;
        do {
            before = streamed.get();
            if (tokens <= before || settled.get()) {
                return;
            }
        } while (!streamed.compareAndSet(before, tokens));
        limiter.chargeOutput(tenant, tokens - before);
    }

    /** Once, when the exchange completes (later calls do nothing). */
    void settle(Exchange exchange) {
        if (!settled.compareAndSet(false, true)) {
            return;
        }
        boolean admitted = AdmissionTicket.PROPERTY.get(exchange) != null;
        Usage usage = Usage.PROPERTY.get(exchange, Usage.NONE);
        long charged = streamed.get();
        long prompt = !admitted ? 0 : usage.hasPromptTokens() ? usage.promptTokens() : estimate;
        long output = admitted && usage.completionTokens() >= 0 ? usage.completionTokens() : charged;
        limiter.settle(tenant, prompt - estimate, output - charged);
        if (admitted) {
            admission.charge(tenant.name(), prompt - estimate + output);
        }
    }
}
