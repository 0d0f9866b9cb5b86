/**
 * The replica-sync cost curve: N gateway processes (the app jar) with and without {@code --sync hazelcast} in front of
 * simulated engines, driven at one request rate spread over the replicas, and what they spend: the gateways' CPU per
 * request from {@code /proc/<pid>/stat}, the decision-visibility lag from the replicas' own sync metrics, and the load
 * average around each fleet. {@link dev.caravan.bench.synccost.SyncCostMain} runs it; it-tests/bench/sync-cost.sh wraps
 * it and docs/benchmarks.md shows its section.
 */
package dev.caravan.bench.synccost;
