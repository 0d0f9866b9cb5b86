/**
 * The approximate radix tree behind cache_aware: a character-level, multi-tenant record of which prompts were sent to
 * which worker, with per-tenant LRU eviction. "Approximate" because it records what the gateway sent, never what the
 * engine kept.
 */
package dev.caravan.policies.tree;
