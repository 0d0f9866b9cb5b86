/**
 * Replica sync ({@code --sync hazelcast}; docs/design/replica-sync.md): the gateway's replicas share what their policies
 * learn through an embedded Hazelcast member, as Camel routes ({@code routes/sync.camel.yaml}). {@link SyncFeature} is the
 * {@code OptionalFeature} that joins the gateway when this module is on the class path; the policies see only the
 * pure-Java ports of {@code dev.caravan.policies.fleet}.
 */
package dev.caravan.sync;
