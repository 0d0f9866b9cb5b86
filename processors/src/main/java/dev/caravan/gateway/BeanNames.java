package dev.caravan.gateway;

import dev.caravan.processors.feature.Wiring;

/**
 * The registry names of the KV-event pipeline's beans, which the gateway's assembler binds itself ({@link KvBeans});
 * every feature that wires its own beans names them on its feature class (e.g. {@code PdFeature.PD_AGGREGATION}), and
 * the objects every feature shares are named on {@link Wiring}. {@code RouteReferencesTest} parses every built-in
 * route file and fails when a {@code ref:} or {@code #bean} names a bean no configuration binds.
 */
public final class BeanNames {

    /** The regular pool's policies, under the name replica sync reads it by ({@link Wiring#POLICY_REGISTRY}). */
    public static final String POLICY_REGISTRY = Wiring.POLICY_REGISTRY;

    // ---- KV events (kv-events.camel.yaml, docs/kv-events.md) ---------------------------------------------------

    public static final String DECODE_KV_BATCH = "decodeKvBatch";
    public static final String APPLY_KV_EVENTS = "applyKvEvents";
    public static final String CHECK_KV_PUBLISHERS = "checkKvPublishers";
    public static final String PLAN_KV_CAPACITY_POLL = "planKvCapacityPoll";
    public static final String APPLY_KV_CAPACITY = "applyKvCapacity";
    public static final String KV_BLOCK_INDEX = "kvBlockIndex";
    public static final String KV_PARITY_TRACKER = "kvParityTracker";
    public static final String KV_EVENT_INGESTOR = "kvEventIngestor";
    public static final String KV_ROUTE_MANAGER = "kvRouteManager";
    public static final String KV_METRICS = "kvMetrics";

    private BeanNames() {
    }
}
