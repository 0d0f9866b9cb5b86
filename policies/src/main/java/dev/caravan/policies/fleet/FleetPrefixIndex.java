package dev.caravan.policies.fleet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

import dev.caravan.policies.tree.OwnerRule;

/**
 * The fleet prefix index every replica keeps: keyed prefix hash → (owner worker URL, stamp), written by this replica's
 * decisions and its peers'. cache_aware matches a request's boundaries against it next to its local tree
 * (docs/design/replica-sync.md).
 *
 * <p><b>Merge rule.</b> An entry is replaced only by one that wins under the owner rule: {@link OwnerRule#FIRST}
 * keeps the smaller stamp (the earliest decision fleet-wide), {@link OwnerRule#LATEST} the larger; equal stamps are
 * ordered by owner URL. The outcome depends only on the set of entries merged, never on their order or repetition, so
 * replicas that received the same decisions hold the same owners. Stamps are opaque longs here; the sync module packs
 * the cluster time and an origin id into them so that no two replicas stamp alike.
 *
 * <p><b>Bounds.</b> {@link #evict} trims each owner's entries to a budget, least recently used (by lookups and merges)
 * first, from the maintenance pass; {@link #removeOwner} drops a worker that left.
 *
 * <p>Thread-safe: entries are immutable and swapped per key with {@code compute}; the recency stamp is a plain field
 * written racily, a hint like the tree's.
 */
public final class FleetPrefixIndex {

    /** The longest boundary found: its index in the {@link RoutedPrefix} and its owner. */
    public record Match(int boundary, String owner) {
    }

    /** One entry as exported for a snapshot. */
    public record Entry(long hash, String owner, long stamp) {
    }

    private static final class Slot {
        final String owner;
        final long stamp;
        long access;

        Slot(String owner, long stamp, long access) {
            this.owner = owner;
            this.stamp = stamp;
            this.access = access;
        }
    }

    private final OwnerRule rule;
    private final ConcurrentHashMap<Long, Slot> slots = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> owners = new ConcurrentHashMap<>();
    private final AtomicLong epoch = new AtomicLong();

    public FleetPrefixIndex(OwnerRule rule) {
        this.rule = rule;
    }

    public OwnerRule rule() {
        return rule;
    }

    /**
     * Merges one entry; returns true when the index changed (the hash was new, or the entry won over the one held).
     */
    public boolean merge(long hash, String owner, long stamp) {
        return merge(hash, owners.computeIfAbsent(owner, o -> o), stamp, epoch.incrementAndGet());
    }

    /**
     * Merges one decision's hashes under one owner and stamp; the hashes that changed the index are written to the front
     * of {@code changed} (at least as long as {@code hashes}) and counted. The common case on the request path — every
     * boundary already held, by a winning entry — only reads.
     */
    public int mergeAll(long[] hashes, String owner, long stamp, long[] changed) {
        String canonical = owners.computeIfAbsent(owner, o -> o);
        long now = epoch.incrementAndGet();
        int n = 0;
        for (long h : hashes) {
            Slot held = slots.get(h);
            if (held != null && !wins(stamp, canonical, held)) {
                held.access = now;
            } else if (merge(h, canonical, stamp, now)) {
                changed[n++] = h;
            }
        }
        return n;
    }

    private boolean merge(long hash, String canonical, long stamp, long now) {
        boolean[] changed = {false};
        slots.compute(hash, (h, held) -> {
            if (held == null || wins(stamp, canonical, held)) {
                changed[0] = true;
                return new Slot(canonical, stamp, now);
            }
            held.access = now;
            return held;
        });
        return changed[0];
    }

    private boolean wins(long stamp, String owner, Slot held) {
        if (stamp == held.stamp) {
            return owner.compareTo(held.owner) < 0;
        }
        return rule == OwnerRule.FIRST ? stamp < held.stamp : stamp > held.stamp;
    }

    /**
     * The longest boundary of {@code prefix} the index holds whose owner {@code usable} accepts (a healthy candidate),
     * or null. Refreshes the found entry's recency.
     */
    public Match longest(RoutedPrefix prefix, Predicate<String> usable) {
        long[] hashes = prefix.hashes();
        for (int i = hashes.length - 1; i >= 0; i--) {
            Slot s = slots.get(hashes[i]);
            if (s != null && usable.test(s.owner)) {
                s.access = epoch.incrementAndGet();
                return new Match(i, s.owner);
            }
        }
        return null;
    }

    /** The owner of one hash, or null; for tests and diagnostics. */
    public String ownerOf(long hash) {
        Slot s = slots.get(hash);
        return s == null ? null : s.owner;
    }

    public int size() {
        return slots.size();
    }

    /** Entries per owner URL, a fresh snapshot (the {@code caravan_sync_peer_prefixes} gauge). */
    public Map<String, Long> countsByOwner() {
        Map<String, Long> out = new HashMap<>();
        slots.values().forEach(s -> out.merge(s.owner, 1L, Long::sum));
        return out;
    }

    /** Drops every entry owned by {@code url} (the worker left); returns how many. */
    public long removeOwner(String url) {
        long before = slots.size();
        slots.values().removeIf(s -> s.owner.equals(url));
        owners.remove(url);
        return before - slots.size();
    }

    /**
     * Trims each owner to at most {@code maxEntries.applyAsLong(owner)} entries, least recently used first; returns
     * the entries removed. One scan, then removals that re-check each entry (a concurrent merge keeps it).
     */
    public long evict(ToLongFunction<String> maxEntries) {
        Map<String, List<long[]>> byOwner = new HashMap<>();
        slots.forEach((hash, s) -> byOwner.computeIfAbsent(s.owner, o -> new ArrayList<>())
                .add(new long[] {s.access, hash}));
        long removed = 0;
        for (Map.Entry<String, List<long[]>> e : byOwner.entrySet()) {
            long budget = Math.max(0, maxEntries.applyAsLong(e.getKey()));
            List<long[]> held = e.getValue();
            if (held.size() <= budget) {
                continue;
            }
            long[][] sorted = held.toArray(new long[0][]);
            Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
            for (int i = 0; i < sorted.length - budget; i++) {
                long access = sorted[i][0];
                boolean[] gone = {false};
                slots.computeIfPresent(sorted[i][1], (h, s) -> {
                    if (s.access == access && s.owner.equals(e.getKey())) {
                        gone[0] = true;
                        return null;
                    }
                    return s;
                });
                removed += gone[0] ? 1 : 0;
            }
        }
        return removed;
    }

    /** Every entry, for a snapshot a joining replica merges. */
    public List<Entry> export() {
        List<Entry> out = new ArrayList<>(slots.size());
        slots.forEach((hash, s) -> out.add(new Entry(hash, s.owner, s.stamp)));
        return out;
    }

    public void clear() {
        slots.clear();
        owners.clear();
    }
}
