/**
 * KV-cache block identity and ground truth: the chained block hash engines use to name cached blocks (vLLM's
 * {@code sha256_cbor}, {@link dev.caravan.policies.kv.BlockHasher}), shared by the engine simulator and the gateway;
 * the {@link dev.caravan.policies.kv.KvBlockIndex} of which worker holds which block (fed by KV events through
 * {@link dev.caravan.policies.kv.KvEventSink}); the precise {@link dev.caravan.policies.kv.KvAwarePolicy} that routes
 * on it; and the {@link dev.caravan.policies.kv.ParityTracker} self-check comparing the router's predictions with what
 * engines report storing. See docs/kv-events.md.
 */
package dev.caravan.policies.kv;
