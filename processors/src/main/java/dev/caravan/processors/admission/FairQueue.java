package dev.caravan.processors.admission;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.TreeMap;

import dev.caravan.processors.time.DelayScheduler;

/**
 * The admission queue: strict priority between classes, and within a class the waiting tenant with the lowest
 * {@link VirtualTokenCounter virtual token counter} first (its oldest request). With one tenant in one class — every
 * request without a tenants file — it is a plain FIFO, as SGLang's queue is.
 *
 * <p>Each priority band holds, per waiting tenant, an insertion-ordered set of its entries, so a request that leaves
 * (timeout, client gone) is removed in O(1) and choosing the next costs one pass over the band's waiting tenants.
 * Not thread-safe: guarded by the {@link AdmissionController}'s lock.
 */
final class FairQueue {

    /** A queued request; identity equality. */
    static final class Entry {
        final AdmissionController.Waiter waiter;
        final FlowKey key;
        final long cost;
        final long queuedAtNanos;
        final long seq;
        DelayScheduler.Scheduled timer;

        Entry(AdmissionController.Waiter waiter, FlowKey key, long cost, long queuedAtNanos, long seq) {
            this.waiter = waiter;
            this.key = key;
            this.cost = cost;
            this.queuedAtNanos = queuedAtNanos;
            this.seq = seq;
        }
    }

    /** The waiting requests of one priority. */
    private static final class Band {
        final Map<String, LinkedHashSet<Entry>> byTenant = new LinkedHashMap<>();
        long lastServed;
    }

    private final TreeMap<Integer, Band> bands = new TreeMap<>();
    private final VirtualTokenCounter counters = new VirtualTokenCounter();
    private int size;

    int size() {
        return size;
    }

    void add(Entry e) {
        Band band = bands.computeIfAbsent(e.key.priority(), p -> new Band());
        LinkedHashSet<Entry> own = band.byTenant.get(e.key.tenant());
        if (own == null) {
            counters.lift(e.key.tenant(), floor(band));
            own = new LinkedHashSet<>();
            band.byTenant.put(e.key.tenant(), own);
        }
        own.add(e);
        size++;
    }

    /** @return false when the entry was no longer queued */
    boolean remove(Entry e) {
        Band band = bands.get(e.key.priority());
        LinkedHashSet<Entry> own = band == null ? null : band.byTenant.get(e.key.tenant());
        if (own == null || !own.remove(e)) {
            return false;
        }
        size--;
        if (own.isEmpty()) {
            band.byTenant.remove(e.key.tenant());
        }
        return true;
    }

    /** Takes the next request to admit, and charges its cost to its tenant; null when empty. */
    Entry poll() {
        for (Band band : bands.values()) {
            String next = null;
            long best = 0;
            long bestSeq = 0;
            for (Map.Entry<String, LinkedHashSet<Entry>> t : band.byTenant.entrySet()) {
                long c = counters.value(t.getKey());
                long seq = t.getValue().iterator().next().seq;
                if (next == null || c < best || (c == best && seq < bestSeq)) {
                    next = t.getKey();
                    best = c;
                    bestSeq = seq;
                }
            }
            if (next != null) {
                LinkedHashSet<Entry> own = band.byTenant.get(next);
                Iterator<Entry> it = own.iterator();
                Entry e = it.next();
                it.remove();
                if (own.isEmpty()) {
                    band.byTenant.remove(next);
                }
                size--;
                band.lastServed = counters.value(next);
                counters.charge(next, e.cost);
                return e;
            }
        }
        return null;
    }

    /** Charges tokens served to a tenant outside admission (output tokens, prompt corrections). */
    void charge(String tenant, long tokens) {
        counters.charge(tenant, tokens);
    }

    long counter(String tenant) {
        return counters.value(tenant);
    }

    /** The oldest entry of any band (for draining). */
    Entry any() {
        for (Band band : bands.values()) {
            for (LinkedHashSet<Entry> own : band.byTenant.values()) {
                return own.iterator().next();
            }
        }
        return null;
    }

    private long floor(Band band) {
        long min = Long.MAX_VALUE;
        for (String t : band.byTenant.keySet()) {
            min = Math.min(min, counters.value(t));
        }
        return min == Long.MAX_VALUE ? band.lastServed : min;
    }
}
