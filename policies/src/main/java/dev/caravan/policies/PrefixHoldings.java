package dev.caravan.policies;

import java.util.List;

/**
 * A policy that can tell, without deciding anything and without changing its state, how much of a request's prompt
 * each candidate held by the policy's own ground truth (kv_aware: its block index). Used off the routing decision by
 * the decision-quality metrics and to score shadow policies; must be thread-safe and read-only.
 */
public interface PrefixHoldings {

    /** Per healthy candidate, the request's leading part it holds; candidates holding nothing may be absent. */
    HeldPrefixes held(List<Worker> candidates, SelectionContext context);
}
