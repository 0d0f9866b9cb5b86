package dev.caravan.policies;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A policy some of whose decisions must first agree with the gateway's other replicas (replica sync): manual's first
 * assignment of a routing key is atomic fleet-wide. The caller asks before {@link LoadBalancingPolicy#select}:
 *
 * <pre>{@code
 * CompletionStage<Void> agreed = policy instanceof FleetAgreement fa ? fa.agreeBefore(candidates, context) : null;
 * if (agreed == null) { decide(); } else { agreed.whenComplete((v, e) -> decide()); }   // select() then follows the fleet
 * }</pre>
 *
 * <p>Most requests need no agreement ({@code null}, at once, without allocation). A stage that fails means the fleet
 * could not answer in time: {@code select} then decides alone, as a single gateway would; the policy has logged and
 * counted it. Never blocks.
 */
public interface FleetAgreement {

    /**
     * Null when this request can be decided from local state now; else a stage that completes once the local state holds
     * the fleet's answer.
     */
    CompletionStage<Void> agreeBefore(List<Worker> candidates, SelectionContext context);
}
