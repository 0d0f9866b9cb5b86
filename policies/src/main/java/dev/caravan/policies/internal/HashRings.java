package dev.caravan.policies.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import dev.caravan.policies.Worker;

/**
 * One {@link HashRing} per model, kept in step with worker membership. SGLang's registry builds each model's ring from
 * every registered worker and rebuilds it on add/remove; here the worker hooks do that, and a candidate the ring has not
 * seen (hooks not wired, or a race with registration) is added on first sight rather than silently unroutable. Lookups
 * skip ring members that are not healthy candidates, as SGLang's do.
 *
 * <p>Thread-safe: rings are immutable and swapped atomically per model.
 */
final class HashRings {

    private final ConcurrentHashMap<String, HashRing> byModel = new ConcurrentHashMap<>();

    /** The model's ring, grown to include every URL in {@code candidates}. */
    HashRing ring(String model, List<Worker> candidates) {
        HashRing ring = byModel.get(model);
        if (ring != null && containsAll(ring, candidates)) {
            return ring; // the request path: no allocation
        }
        List<String> urls = new ArrayList<>(candidates.size());
        for (Worker w : candidates) {
            urls.add(w.url());
        }
        return byModel.compute(model, (m, r) -> r == null ? HashRing.of(urls) : r.with(urls));
    }

    /**
     * The worker of {@code healthy} the model's ring (grown to {@code candidates}) assigns {@code key} to: the first
     * ring member clockwise from the key's hash that is healthy; null when none is.
     */
    Worker pick(String model, List<Worker> candidates, List<Worker> healthy, String key) {
        String url = ring(model, candidates).find(key, u -> ConsistentHashingPolicy.find(healthy, u) != null);
        return url == null ? null : ConsistentHashingPolicy.find(healthy, url);
    }

    private static boolean containsAll(HashRing ring, List<Worker> candidates) {
        for (int i = 0, n = candidates.size(); i < n; i++) {
            if (!ring.urls().contains(candidates.get(i).url())) {
                return false;
            }
        }
        return true;
    }

    void add(Worker w) {
        byModel.compute(w.modelId(), (m, r) -> r == null ? HashRing.of(List.of(w.url())) : r.with(List.of(w.url())));
    }

    /** Drops the URL from every model's ring (SGLang's remove-by-URL). */
    void remove(Worker w) {
        for (String model : byModel.keySet()) {
            byModel.computeIfPresent(model, (m, r) -> {
                HashRing rest = r.without(w.url());
                return rest.urls().isEmpty() ? null : rest;
            });
        }
    }

    void clear() {
        byModel.clear();
    }
}
