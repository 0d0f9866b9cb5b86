/**
 * {@code ./caravan bench soak}: a fleet soak under a seeded fault schedule. Two gateway replicas run as child JVMs
 * (replica sync over Hazelcast, each member reached through a {@link dev.caravan.bench.soak.SyncLink} that can cut the
 * link between them), eight simulated engines publish KV events in the driver's JVM, and a mixed open-loop load runs
 * while {@link dev.caravan.bench.soak.FaultKind faults} are injected one after the other. Every request is in the
 * {@link dev.caravan.bench.soak.Ledger}; a failure counts as attributed when it falls inside a fault's window and its
 * cause is one that fault is expected to produce; a request neither answered nor failed by the drain deadline is lost.
 */
package dev.caravan.bench.soak;
