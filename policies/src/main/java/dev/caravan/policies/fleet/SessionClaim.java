package dev.caravan.policies.fleet;

import java.util.List;

/**
 * The fleet's answer to a session claim: the routing key's workers (oldest first, at most two as manual remembers),
 * the branch the claim took, and the entry's version (a later version always replaces an earlier one in a local cache).
 *
 * @param workers worker URLs remembered for the key
 * @param branch  {@code vacant} (the proposal was recorded for a new key), {@code occupied_hit} (a remembered worker was
 *                usable) or {@code occupied_miss} (none was; the proposal was appended)
 * @param version the entry's version after the claim
 */
public record SessionClaim(List<String> workers, String branch, long version) {

    public SessionClaim {
        workers = List.copyOf(workers);
    }
}
