package dev.caravan.processors.kv;

/**
 * Exchange property names of the KV-event route. (To be folded into the gateway's single exchange-properties constants
 * class when the pipeline is wired into the routes.)
 */
public final class KvExchangeProperties {

    /** The id of the worker whose KV events the exchange carries; set by the per-worker route template. */
    public static final String WORKER_ID = "caravan.kv.workerId";

    private KvExchangeProperties() {
    }
}
