package dev.caravan.policies.fleet;

/**
 * What a policy may share with the other replicas of its gateway, carried by
 * {@link dev.caravan.policies.PolicyEnvironment#fleet()}: null when the gateway runs alone ({@code --sync none}), and
 * then no policy does anything differently.
 *
 * @param prefixes cache_aware's fleet prefix index and outbox, or null
 * @param sessions manual's shared routing-key assignments, or null
 * @param buckets  bucket's shared length ranges, or null
 */
public record Fleet(FleetPrefixes prefixes, SessionStore sessions, BucketRanges buckets) {

    public Fleet(FleetPrefixes prefixes, SessionStore sessions) {
        this(prefixes, sessions, null);
    }
}
