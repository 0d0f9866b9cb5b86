package dev.caravan.policies.kv;

import java.util.Objects;

import dev.caravan.policies.text.TokenizerSource;

/**
 * What the KV-event pipeline knows, handed to the policies that route on it through
 * {@code PolicyEnvironment#kv()}: the gateway creates one per process and feeds {@link #index()} and
 * {@link #parity()} from every worker's KV-event route; every per-model {@code kv_aware} instance shares them.
 *
 * @param index      block key → engine ranks and tiers (shared, thread-safe)
 * @param parity     the self-check the policy reports its predictions to, or null for none
 * @param tokenizers resolves the {@code kv-tokenizer} setting
 */
public record KvGroundTruth(KvBlockIndex index, ParityTracker parity, TokenizerSource tokenizers) {

    public KvGroundTruth {
        Objects.requireNonNull(index, "index");
        Objects.requireNonNull(tokenizers, "tokenizers");
    }
}
