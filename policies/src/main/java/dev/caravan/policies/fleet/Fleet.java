package dev.caravan.policies.fleet;

import dev.caravan.policies.kv.PeerActiveBlocks;

/**
 * What a policy may share with the other replicas of its gateway, carried by
 * {@link dev.caravan.policies.PolicyEnvironment#fleet()}: null when the gateway runs alone ({@code --sync none}), and
 * then no policy does anything differently.
 *
 * @param prefixes cache_aware's fleet prefix index and outbox, or null
 * @param sessions manual's shared routing-key assignments, or null
 * @param buckets  bucket's shared length ranges, or null
 * @param activeBlocks kv_aware's in-flight blocks across replicas, or null
 */
public record Fleet(FleetPrefixes prefixes, SessionStore sessions, BucketRanges buckets,
                    PeerActiveBlocks activeBlocks) {

    public Fleet(FleetPrefixes prefixes, SessionStore sessions) {
        this(prefixes, sessions, null, null);
    }
}
