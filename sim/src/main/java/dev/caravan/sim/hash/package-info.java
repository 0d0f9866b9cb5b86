/**
 * The block hashes simulated engines compute, written from the engines' published algorithms and checked against
 * vectors derived in Python ({@code sim/src/test/python/derive_hash_vectors.py}): vLLM's chained
 * {@code sha256}/{@code sha256_cbor}/{@code xxhash}/{@code xxhash_cbor} over a pickle or canonical CBOR of
 * {@code (parent, tokens, extra_keys)} ({@link dev.caravan.sim.hash.VllmBlockHasher}), and SGLang's page chain
 * ({@link dev.caravan.sim.hash.SglangPageHasher}). The simulator shares no hashing code with the gateway.
 */
package dev.caravan.sim.hash;
