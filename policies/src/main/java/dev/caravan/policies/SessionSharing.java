package dev.caravan.policies;

import java.util.List;

/**
 * A policy whose routing-key assignments are shared with the gateway's other replicas (manual, with replica sync): the
 * sync module tells it about peers' changes to keys it holds. Keys are the fleet's keys
 * ({@link dev.caravan.policies.fleet.SessionStore#keyOf}), versions order the changes.
 */
public interface SessionSharing {

    /** A peer changed the key's workers (oldest first) to this version; older versions than the one held are ignored. */
    void sessionChanged(String key, List<String> workerUrls, long version);

    /** The key expired or was removed fleet-wide. */
    void sessionRemoved(String key);
}
