package dev.caravan.policies.internal;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import net.openhft.hashing.LongHashFunction;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.PrefixHashConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * SGLang's {@code prefix_hash}: requests whose first {@code prefixTokenCount} tokens are equal go to the same worker,
 * unless it is overloaded.
 *
 * <p>The prefix is hashed with xxh3_64 over the tokens as little-endian 32-bit integers (SGLang's exact hash); the ring
 * key is that hash as 16 lower-case hex digits, looked up on a {@link HashRing} of the model's workers. The ring's worker
 * is kept while {@code load <= (totalLoad + 1) / healthy * loadFactor} (totals over healthy workers; any load is fine
 * when the total is 0) ({@code ring_hit}); otherwise the least-loaded worker passing that test, or the ring's worker
 * when none does ({@code load_balance_walk}).
 *
 * <p>Tokens: SGLang only has them on its gRPC path, so over HTTP this policy answers no worker ({@code no_tokens}, a 503)
 * for every request. That is kept: with {@link SelectionContext#tokens()} null or empty the decision is
 * {@link Decision#none}. A gateway that fills tokens (e.g. with the pseudo-tokenizer) makes it route. Thread-safe.
 */
public final class PrefixHashPolicy extends RingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(PrefixHashPolicy.class);
    private static final String NAME = PolicyName.PREFIX_HASH.wireName();
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private final PrefixHashConfig config;

    public PrefixHashPolicy(PrefixHashConfig config) {
        this.config = config;
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        if (candidates.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        int[] tokens = context.tokens();
        if (tokens == null || tokens.length == 0) {
            return Decision.none(NAME, Branches.NO_TOKENS);
        }
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String key = ringKey(tokens, config.prefixTokenCount());
        long total = 0;
        for (Worker w : healthy) {
            total += w.load();
        }
        int n = healthy.size();
        Worker picked = rings.pick(ModelKey.of(context, healthy), candidates, healthy, key);
        if (picked == null) {
            // Unreachable while the ring holds every candidate; kept as SGLang's no-ring fallback.
            return Decision.of(HealthyWorkers.minLoad(healthy), NAME, Branches.FALLBACK_LEAST_LOAD);
        }
        if (loadOk(picked.load(), total, n)) {
            return Decision.of(picked, NAME, Branches.RING_HIT);
        }
        Worker least = null;
        for (Worker w : healthy) {
            if (loadOk(w.load(), total, n) && (least == null || w.load() < least.load())) {
                least = w;
            }
        }
        Worker chosen = least != null ? least : picked;
        if (LOG.isDebugEnabled()) {
            LOG.debug("prefix_hash: ring chose {} (load {}, total {}) overloaded -> {}", picked.url(), picked.load(),
                    total, chosen.url());
        }
        return Decision.of(chosen, NAME, Branches.LOAD_BALANCE_WALK);
    }

    /** 16 hex digits of xxh3_64 over the first {@code count} tokens as little-endian u32. */
    static String ringKey(int[] tokens, int count) {
        long h = XXH3.hashInts(tokens, 0, Math.min(tokens.length, count));
        String hex = Long.toHexString(h);
        return "0".repeat(16 - hex.length()) + hex;
    }

    /** SGLang's {@code load_ok}: within {@code loadFactor} of the mean load counting this request. */
    boolean loadOk(long load, long total, int workers) {
        if (total == 0 || workers == 0) {
            return true;
        }
        double mean = (total + 1) / (double) workers;
        return load <= mean * config.loadFactor();
    }

    @Override
    public String name() {
        return NAME;
    }
}
