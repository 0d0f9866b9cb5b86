package dev.caravan.processors.quality;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PrefixHoldings;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Where the decision-quality metrics and the shadow policies learn what each healthy worker held of a request, in this
 * order: the live policy's own ground truth (kv_aware: the KV index, in tokens), else the live policy's tree
 * (cache_aware: its best match per worker, in characters), else a kv_aware shadow's KV index; else nothing is known
 * (null) and only the engines' {@code cached_tokens} can be counted. Read-only: it changes no policy's state.
 */
public final class PrefixOracle {

    private final ShadowPolicies shadows;

    public PrefixOracle(ShadowPolicies shadows) {
        this.shadows = shadows;
    }

    /** What each of the available workers held, or null when no source knows. */
    public HeldPrefixes held(PolicyRegistry.Pool pool, List<Worker> available, SelectionContext context) {
        LoadBalancingPolicy policy = pool.policy();
        if (policy instanceof PrefixHoldings h) {
            return h.held(available, context);
        }
        if (policy instanceof TreeBacked t) {
            return fromTree(t, pool.model(), available, context.requestText());
        }
        PrefixHoldings shadow = shadows.holdings(pool.model());
        return shadow == null ? null : shadow.held(available, context);
    }

    /** The tree's match per healthy candidate (tenants are worker URLs), in code points of the routing text. */
    static HeldPrefixes fromTree(TreeBacked policy, String model, List<Worker> available, String text) {
        Map<String, Long> byTenant = policy.tree(model).map(tree -> tree.matchedCharsByTenant(text)).orElse(Map.of());
        Map<String, Long> held = new HashMap<>();
        for (Worker w : available) {
            Long chars = byTenant.get(w.url());
            if (chars != null && chars > 0 && w.isHealthy()) {
                held.put(w.url(), chars);
            }
        }
        return new HeldPrefixes(HeldPrefixes.Unit.CHARS, text.codePointCount(0, text.length()), held);
    }
}
