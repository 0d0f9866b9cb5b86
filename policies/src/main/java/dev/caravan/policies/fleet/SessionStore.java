package dev.caravan.policies.fleet;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The fleet's routing-key assignments (manual's sticky sessions), implemented by the sync module on a distributed map.
 * Keys are keyed hashes of model and routing key ({@link #keyOf}), since a routing key may identify a user.
 */
public interface SessionStore {

    /** The fleet-wide key of a routing key under a model; the same on every replica, meaningless without the secret. */
    String keyOf(String model, String routingKey);

    /**
     * Atomically, on the key's owner: if one of the key's workers is in {@code usable}, the entry as it is
     * ({@code occupied_hit}); else records {@code proposal} (a new key: {@code vacant}; appended, keeping the newest two:
     * {@code occupied_miss}). Two concurrent claims for a new key therefore both complete with the first one's worker.
     * Completes exceptionally when the fleet cannot answer in time; the caller then decides alone.
     *
     * @param model    the model (carried in the entry so peers find the policy to update)
     * @param key      {@link #keyOf} the routing key
     * @param usable   worker URLs the caller may route to
     * @param proposal the caller's choice if the fleet has none usable
     */
    CompletionStage<SessionClaim> claim(String model, String key, List<String> usable, String proposal);

    /** The key was routed by this replica now (keeps a shared idle TTL from expiring an active session). Cheap. */
    void touched(String key);
}
