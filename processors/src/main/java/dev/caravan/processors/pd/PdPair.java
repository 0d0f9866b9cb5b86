package dev.caravan.processors.pd;

import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.processors.ExchangeProperty;

/**
 * The prefill and decode workers chosen for one attempt of a P/D request, each with its policy decision, the policy
 * that made it (told the outcome at the end) and its load lease (taken at selection, released exactly once: the prefill
 * lease when the prefill leg ends, the decode lease when the decode response ends; in any case when the exchange
 * completes). A retry selects a new pair.
 */
public record PdPair(Side prefill, Side decode) {

    /** The attempt's pair with decisions and leases (written by {@code selectPdPair}). */
    public static final ExchangeProperty<PdPair> PROPERTY = ExchangeProperty.of("caravanPdPair", PdPair.class);

    /** One leg's worker. */
    public record Side(Worker worker, Decision decision, LoadBalancingPolicy policy, WorkerLease lease) {
    }

    public Side side(Leg leg) {
        return leg == Leg.PREFILL ? prefill : decode;
    }

    /** {@code prefill=URL; decode=URL}: the {@code X-Caravan-Worker} value of a P/D response. */
    public String workersHeader() {
        return "prefill=" + prefill.worker().url() + "; decode=" + decode.worker().url();
    }

    /** {@code prefill=policy:branch; decode=policy:branch}: the {@code X-Caravan-Decision} value. */
    public String decisionsHeader() {
        return "prefill=" + prefill.decision().label() + "; decode=" + decode.decision().label();
    }

    /** Releases both leases (idempotent). */
    public void releaseLeases() {
        prefill.lease().release();
        decode.lease().release();
    }
}
