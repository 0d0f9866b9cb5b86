package dev.caravan.policies.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import net.openhft.hashing.LongHashFunction;

/**
 * An immutable consistent-hash ring with {@value #VIRTUAL_NODES} virtual nodes per worker URL, SGLang's layout: node
 * {@code i} of a worker sits at {@code hash("{url}#{i}")}; a key maps to the first node at or after {@code hash(key)},
 * clockwise, wrapping. Positions are unsigned 64-bit.
 *
 * <p>Hash: SGLang uses the first 8 bytes of BLAKE3. There is no BLAKE3 among our dependencies, so positions are
 * xxh3_64 (seed 0) of the UTF-8 bytes instead: stable across JVMs and releases, well distributed, and fast. Positions
 * therefore differ from SGLang's; the behaviour (stickiness, ~1/N keys moving when a worker leaves) does not.
 *
 * <p>Thread-safe (immutable); rebuilt with {@link #with}/{@link #without} only when membership changes.
 */
final class HashRing {

    static final int VIRTUAL_NODES = 150;
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private final long[] positions; // ascending, unsigned
    private final String[] owners;  // parallel to positions
    private final Set<String> urls;

    private HashRing(Collection<String> urls) {
        this.urls = Collections.unmodifiableSet(new LinkedHashSet<>(urls));
        int n = this.urls.size() * VIRTUAL_NODES;
        long[] pos = new long[n];
        String[] own = new String[n];
        Integer[] order = new Integer[n];
        int i = 0;
        for (String url : this.urls) {
            for (int v = 0; v < VIRTUAL_NODES; v++) {
                pos[i] = hash(url + "#" + v);
                own[i] = url;
                order[i] = i;
                i++;
            }
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compareUnsigned(pos[a], pos[b]);
            return c != 0 ? c : own[a].compareTo(own[b]);
        });
        this.positions = new long[n];
        this.owners = new String[n];
        for (int k = 0; k < n; k++) {
            positions[k] = pos[order[k]];
            owners[k] = own[order[k]];
        }
    }

    static HashRing of(Collection<String> urls) {
        return new HashRing(urls);
    }

    static long hash(String key) {
        return XXH3.hashBytes(key.getBytes(StandardCharsets.UTF_8));
    }

    Set<String> urls() {
        return urls;
    }

    HashRing with(Collection<String> more) {
        List<String> all = new ArrayList<>(urls);
        for (String u : more) {
            if (!urls.contains(u)) {
                all.add(u);
            }
        }
        return all.size() == urls.size() ? this : new HashRing(all);
    }

    HashRing without(String url) {
        if (!urls.contains(url)) {
            return this;
        }
        List<String> rest = new ArrayList<>(urls);
        rest.remove(url);
        return new HashRing(rest);
    }

    /**
     * Walks clockwise from the key's position and returns the first worker URL accepted by {@code usable} (each URL is
     * tested once), or null when none is.
     */
    String find(String key, Predicate<String> usable) {
        int n = positions.length;
        if (n == 0) {
            return null;
        }
        int start = firstAtOrAfter(hash(key));
        List<String> checked = new ArrayList<>(4);
        for (int k = 0; k < n && checked.size() < urls.size(); k++) {
            String url = owners[(start + k) % n];
            if (checked.contains(url)) {
                continue;
            }
            if (usable.test(url)) {
                return url;
            }
            checked.add(url);
        }
        return null;
    }

    /** Index of the first position >= h (unsigned), or 0 when h is beyond the last (wrap). */
    private int firstAtOrAfter(long h) {
        int lo = 0;
        int hi = positions.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(positions[mid], h) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == positions.length ? 0 : lo;
    }
}
