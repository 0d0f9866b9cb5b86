package dev.caravan.policies.fleet;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * cache_aware's view of what the fleet routed: hashes a routing text ({@link #digest}), finds the longest boundary the
 * fleet holds ({@link #longest}), and records this replica's decisions ({@link #routed}), handing the boundaries that
 * were new to the local index to the outbox the sync module drains into its publishing route. Peers' decisions come in
 * through {@link #learn}. Non-blocking: the outbox must accept or drop at once.
 */
public final class FleetPrefixes {

    private final PrefixHasher hasher;
    private final FleetPrefixIndex index;
    private final LongSupplier stamps;
    private final Consumer<PrefixDecision> outbox;

    /**
     * @param hasher the keyed hasher every replica shares (same key, same chunking)
     * @param index  this replica's index
     * @param stamps the next decision stamp (fleet-comparable, unique to this replica)
     * @param outbox takes this replica's decisions for publishing; must not block
     */
    public FleetPrefixes(PrefixHasher hasher, FleetPrefixIndex index, LongSupplier stamps,
            Consumer<PrefixDecision> outbox) {
        this.hasher = Objects.requireNonNull(hasher, "hasher");
        this.index = Objects.requireNonNull(index, "index");
        this.stamps = Objects.requireNonNull(stamps, "stamps");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
    }

    public RoutedPrefix digest(String model, String text) {
        return hasher.digest(model, text);
    }

    /** See {@link FleetPrefixIndex#longest}. */
    public FleetPrefixIndex.Match longest(RoutedPrefix prefix, Predicate<String> usable) {
        return index.longest(prefix, usable);
    }

    /** This replica sent {@code prefix} to {@code workerUrl}: merge it, and publish the boundaries that changed. */
    public void routed(RoutedPrefix prefix, String workerUrl) {
        long[] hashes = prefix.hashes();
        if (hashes.length == 0) {
            return;
        }
        long stamp = stamps.getAsLong();
        long[] changed = new long[hashes.length];
        int n = index.mergeAll(hashes, workerUrl, stamp, changed);
        if (n > 0) {
            outbox.accept(new PrefixDecision(workerUrl, stamp, n == hashes.length ? changed : Arrays.copyOf(changed, n)));
        }
    }

    /** A peer's decision. */
    public void learn(PrefixDecision decision) {
        index.mergeAll(decision.hashes(), decision.workerUrl(), decision.stamp(), new long[decision.hashes().length]);
    }

    public FleetPrefixIndex index() {
        return index;
    }

    public PrefixHasher hasher() {
        return hasher;
    }
}
