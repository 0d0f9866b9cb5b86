package dev.caravan.kubernetes;

import java.util.Locale;

/** Why discovery registered a worker; the {@code reason} tag of {@code caravan_discovery_registrations_total}. */
public enum RegistrationReason {
    /** The pod matches a selector, is Running and Ready, and has an IP, and was not registered before. */
    READY,
    /** The pod's worker changed (role, model, bootstrap port, KV endpoints, IP): the old worker was drained first. */
    CHANGED,
    /**
     * The pod's worker had disappeared from the registry without discovery removing it (an admin {@code DELETE}); the
     * pod is still ready, so it was registered again. Kubernetes is the source of truth for discovered workers.
     */
    RESTORED;

    /** The metric tag value. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
