package dev.caravan.processors.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * The gateway's pools of per-model policies and what the control plane does with each: the maintenance timer's
 * housekeeping (tree evictions, TTL sweeps; {@code runMaintenance}), and forgetting an engine's cached prefixes once
 * {@code POST /flush_cache} emptied its cache ({@code summarizeFlushCache}). The routing feature shares one with the
 * regular pool in both lists; a feature wired after it adds its own pools (the shadow policies are maintained, the
 * prefill and decode pools forget flushed engines and keep their own timers), and the control feature, wired after
 * them, reads both lists. Not thread-safe: filled while the gateway wires, on one thread.
 */
public final class PolicyPools {

    private final List<PolicyRegistry> maintained = new ArrayList<>();
    private final List<PolicyRegistry> flushed = new ArrayList<>();

    /** A pool whose policies the maintenance timer keeps. */
    public void maintain(PolicyRegistry pool) {
        maintained.add(pool);
    }

    /** A pool whose policies forget an engine's prefixes when its cache is flushed. */
    public void forgetOnFlush(PolicyRegistry pool) {
        flushed.add(pool);
    }

    /** The pools the maintenance timer keeps, in the order they were added. */
    public List<PolicyRegistry> maintained() {
        return List.copyOf(maintained);
    }

    /** The pools that forget flushed engines, in the order they were added. */
    public List<PolicyRegistry> flushed() {
        return List.copyOf(flushed);
    }
}
