package dev.caravan.kubernetes;

import java.util.Locale;

/**
 * Why a pod is not (or no longer) a worker; the {@code reason} tag of {@code caravan_discovery_deregistrations_total}.
 * Every reason drains: the worker leaves the registry (no new requests) while requests holding its lease finish.
 * SGLang removes a worker only on {@link #TERMINATING}/{@link #DELETED}; every other reason here is what Caravan adds.
 */
public enum DeregistrationReason {
    /** The pod's labels no longer match any configured selector. */
    SELECTOR_MISMATCH,
    /** The pod has a deletion timestamp: Kubernetes is terminating it. */
    TERMINATING,
    /** The pod's phase is not {@code Running} (Pending, Succeeded, Failed, Unknown). */
    NOT_RUNNING,
    /** The pod's {@code Ready} condition is not {@code True}: the engine fails its readiness probe. */
    NOT_READY,
    /** The pod has no IP yet. */
    NO_POD_IP,
    /** An annotation Caravan reads (bootstrap port, KV-event endpoint) is malformed. */
    INVALID_ANNOTATION,
    /** The watch reported the pod deleted. */
    DELETED,
    /** The pod was missing from a full pod list: deleted while the watch was down. */
    VANISHED,
    /** The pod's worker changed; the old one is drained and a new one registered ({@link RegistrationReason#CHANGED}). */
    CHANGED;

    /** The metric tag value. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
