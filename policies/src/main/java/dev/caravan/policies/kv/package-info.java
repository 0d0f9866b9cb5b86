/**
 * KV-cache ground truth and the precise policy that routes on it: {@link dev.caravan.policies.kv.BlockKeys} (Caravan's
 * own chained hash of token ids, the same whatever the engines hash with), the {@link dev.caravan.policies.kv.KvBlockIndex}
 * of which engine rank holds which block (fed with decoded {@link dev.caravan.policies.kv.KvEvent}s, engine ids mapped
 * to keys so removals resolve), the precise {@link dev.caravan.policies.kv.KvAwarePolicy} with its in-flight
 * {@link dev.caravan.policies.kv.ActiveBlocks}, and the {@link dev.caravan.policies.kv.ParityTracker} self-check
 * comparing the router's predicted keys with the keys recomputed from what engines report storing. See
 * docs/kv-events.md and docs/design/kv-index.md.
 */
package dev.caravan.policies.kv;
