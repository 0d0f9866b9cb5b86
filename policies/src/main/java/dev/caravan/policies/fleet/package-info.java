/**
 * What the replicas of one gateway share so that N of them route like one (docs/design/replica-sync.md): the keyed
 * prefix hashes cache_aware publishes instead of prompt text ({@link dev.caravan.policies.fleet.PrefixHasher}), the
 * fleet prefix index every replica keeps ({@link dev.caravan.policies.fleet.FleetPrefixIndex}), and the ports the sync
 * module implements ({@link dev.caravan.policies.fleet.SessionStore}). Pure Java: the distributed engine (Hazelcast)
 * lives in {@code caravan-sync}, which fills {@link dev.caravan.policies.fleet.Fleet} into the policies' environment.
 */
package dev.caravan.policies.fleet;
