package dev.caravan.processors.quality;

import java.util.ArrayList;
import java.util.List;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PrefixHoldings;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * The {@code --shadow-policies}: each one a {@link PolicyRegistry} of its own over the regular pool (one instance per
 * model, told of workers joining and leaving, its own trees and counters), asked on live traffic but never followed.
 * Its instances share the KV index with kv_aware but feed no parity self-check and report no active blocks to other
 * replicas.
 */
public final class ShadowPolicies {

    /** One shadow policy: its name as configured and its per-model instances. */
    public record Shadow(String name, PolicyRegistry registry) {
    }

    public static final ShadowPolicies NONE = new ShadowPolicies(List.of());

    private final List<Shadow> shadows;

    public ShadowPolicies(List<Shadow> shadows) {
        this.shadows = List.copyOf(shadows);
    }

    public List<Shadow> shadows() {
        return shadows;
    }

    public boolean isEmpty() {
        return shadows.isEmpty();
    }

    /** Every shadow's registry (for maintenance: cache_aware's tree eviction). */
    public List<PolicyRegistry> registries() {
        List<PolicyRegistry> out = new ArrayList<>(shadows.size());
        shadows.forEach(s -> out.add(s.registry()));
        return out;
    }

    /** The first shadow whose model instance knows what the engines hold (kv_aware), or null. */
    public PrefixHoldings holdings(String model) {
        for (Shadow s : shadows) {
            LoadBalancingPolicy p = s.registry().policyFor(model);
            if (p instanceof PrefixHoldings h) {
                return h;
            }
        }
        return null;
    }
}
