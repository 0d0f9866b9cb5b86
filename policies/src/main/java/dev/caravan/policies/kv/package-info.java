/**
 * KV-cache block identity: the chained block hash engines use to name cached blocks (vLLM's {@code sha256_cbor}), shared
 * by the engine simulator and the gateway's precise KV-event policy.
 */
package dev.caravan.policies.kv;
