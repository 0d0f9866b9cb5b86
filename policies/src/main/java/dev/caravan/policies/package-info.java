/**
 * Caravan's pure-Java routing core: the worker model ({@link dev.caravan.policies.Worker},
 * {@link dev.caravan.policies.WorkerRegistry}), the {@link dev.caravan.policies.LoadBalancingPolicy} contract with its
 * parameter object {@link dev.caravan.policies.SelectionContext} and result {@link dev.caravan.policies.Decision},
 * and the policies themselves.
 *
 * <p>Nothing in this module imports Camel or an HTTP library: it is unit-tested and benchmarked in microseconds and reused
 * by the benchmark's what-if replay. Time and randomness are always injected.
 */
package dev.caravan.policies;
