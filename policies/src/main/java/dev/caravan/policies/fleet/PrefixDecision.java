package dev.caravan.policies.fleet;

/**
 * One replica's routing decision as its peers learn it: the keyed prefix hashes of the routed text
 * ({@link RoutedPrefix#hashes()}, only those that were new to the sender's index) and the worker it went to.
 *
 * @param workerUrl the chosen worker
 * @param stamp     the decision's fleet-comparable stamp (cluster time and origin, see {@link FleetPrefixIndex})
 * @param hashes    boundary hashes; never empty
 */
public record PrefixDecision(String workerUrl, long stamp, long[] hashes) {

    public PrefixDecision {
        if (workerUrl == null || hashes == null || hashes.length == 0) {
            throw new IllegalArgumentException("a prefix decision needs a worker and at least one hash");
        }
    }
}
