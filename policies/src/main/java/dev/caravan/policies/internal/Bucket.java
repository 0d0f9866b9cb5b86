package dev.caravan.policies.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One model's state for {@link BucketPolicy}: the workers in order, a prompt-length range per worker, and the characters
 * routed to each worker within a sliding window. Not thread-safe; {@link BucketPolicy} synchronises on the instance.
 *
 * <p>Boundaries start evenly over {@code [0, 4096)} ({@code gap = 4096 / n}, worker {@code i} gets
 * {@code [i*gap, (i+1)*gap - 1]}, the last one everything above). {@link #adjust()} re-cuts them so each worker's range
 * holds about {@code total / n} of the window's characters, walking the window's request sizes in ascending order; it
 * skips when the new per-worker share is within a factor of two of the last one it cut for.
 */
final class Bucket {

    /** SGLang's initial length span. */
    static final long INITIAL_SPAN = 4096;

    record Boundary(String url, long lo, long hi) {
    }

    private record Routed(long atNanos, long chars, String url) {
    }

    private final long windowNanos;
    /** Workers kept sorted by URL (replica sync: every replica cuts the same ranges), else in the order added. */
    private final boolean sortedUrls;
    private final List<String> urls = new ArrayList<>();
    private final Map<String, Long> charsPerUrl = new LinkedHashMap<>();
    private final ArrayDeque<Routed> window = new ArrayDeque<>();
    private List<Boundary> boundaries = List.of();
    private long windowChars;
    private long lastShare;

    Bucket(long windowNanos) {
        this(windowNanos, false);
    }

    Bucket(long windowNanos, boolean sortedUrls) {
        this.windowNanos = windowNanos;
        this.sortedUrls = sortedUrls;
    }

    boolean contains(String url) {
        return charsPerUrl.containsKey(url);
    }

    /**
     * Adds a worker and re-cuts the boundaries evenly over the initial span (SGLang re-initialises on every add; it also
     * then widens the span to the maximum, which would hand the first worker every realistic prompt; that quirk is
     * not reproduced). The window's counts are kept.
     */
    void add(String url) {
        if (!charsPerUrl.containsKey(url)) {
            urls.add(url);
            if (sortedUrls) {
                urls.sort(null);
            }
            charsPerUrl.put(url, 0L);
            initBoundaries();
        }
    }

    void remove(String url) {
        if (charsPerUrl.remove(url) != null) {
            urls.remove(url);
            initBoundaries();
        }
    }

    private void initBoundaries() {
        int n = urls.size();
        List<Boundary> out = new ArrayList<>(n);
        long gap = n == 0 ? 0 : INITIAL_SPAN / n;
        for (int i = 0; i < n; i++) {
            out.add(new Boundary(urls.get(i), i * gap, i == n - 1 ? Long.MAX_VALUE : (i + 1) * gap - 1));
        }
        boundaries = List.copyOf(out);
    }

    /** True when the windowed characters are imbalanced: {@code max - min > abs && max > min * rel}, strictly. */
    boolean imbalanced(long absThreshold, double relThreshold) {
        if (charsPerUrl.isEmpty()) {
            return false;
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long c : charsPerUrl.values()) {
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        return Imbalance.imbalanced(min, max, absThreshold, relThreshold);
    }

    /** The worker with the fewest windowed characters, first in order on ties. */
    String leastChars() {
        String best = null;
        long min = Long.MAX_VALUE;
        for (Map.Entry<String, Long> e : charsPerUrl.entrySet()) {
            if (e.getValue() < min) {
                min = e.getValue();
                best = e.getKey();
            }
        }
        return best;
    }

    /** The worker whose range holds {@code chars}, or null (binary search; ranges are ascending and disjoint). */
    String boundaryFor(long chars) {
        List<Boundary> b = boundaries;
        int lo = 0;
        int hi = b.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            Boundary m = b.get(mid);
            if (chars < m.lo) {
                hi = mid;
            } else if (chars > m.hi) {
                lo = mid + 1;
            } else {
                return m.url;
            }
        }
        return null;
    }

    /** Counts a routed prompt and drops window entries older than the window (strictly). */
    void record(long chars, String url, long nowNanos) {
        charsPerUrl.computeIfPresent(url, (u, c) -> c + chars);
        expire(nowNanos);
        window.addLast(new Routed(nowNanos, chars, url));
        windowChars += chars;
    }

    void expire(long nowNanos) {
        while (!window.isEmpty() && nowNanos - window.peekFirst().atNanos > windowNanos) {
            Routed r = window.pollFirst();
            windowChars -= r.chars;
            charsPerUrl.computeIfPresent(r.url, (u, c) -> Math.max(0, c - r.chars));
        }
    }

    /** Re-cuts the boundaries from the window; returns true when they changed. */
    boolean adjust(long nowNanos) {
        expire(nowNanos);
        int n = urls.size();
        if (window.isEmpty() || n == 0) {
            return false;
        }
        long share = windowChars / n;
        long old = lastShare;
        if (old != 0 && share <= 2 * old && old <= 2 * share) {
            return false;
        }
        lastShare = share;
        long[] sizes = window.stream().mapToLong(Routed::chars).toArray();
        Arrays.sort(sizes);
        boundaries = cut(urls, sizes, share);
        return true;
    }

    /**
     * Walks the ascending sizes, closing a worker's range at the size where its running sum reaches {@code share} (or
     * {@code share} above the range start if that size is already below it); a worker that runs out of sizes gets a
     * {@code share}-wide range; the last worker always gets everything above.
     */
    static List<Boundary> cut(List<String> urls, long[] sizes, long share) {
        List<Boundary> out = new ArrayList<>(urls.size());
        long lower = 0;
        int next = 0;
        for (int i = 0; i < urls.size(); i++) {
            String url = urls.get(i);
            boolean last = i == urls.size() - 1;
            if (last) {
                out.add(new Boundary(url, lower, Long.MAX_VALUE));
                break;
            }
            long sum = 0;
            boolean closed = false;
            while (next < sizes.length) {
                long size = sizes[next++];
                sum += size;
                if (sum >= share) {
                    long upper = size <= lower ? lower + share : size;
                    out.add(new Boundary(url, lower, upper));
                    lower = upper + 1;
                    closed = true;
                    break;
                }
            }
            if (!closed) {
                out.add(new Boundary(url, lower, lower + share));
                lower = lower + share + 1;
            }
        }
        return List.copyOf(out);
    }

    /**
     * Takes ranges another replica cut, when they name exactly this bucket's workers in its order; returns true when
     * the boundaries changed. Ranges of another worker set (discovery skew) are ignored: this bucket keeps its own.
     */
    boolean adopt(List<Boundary> ranges) {
        if (ranges.size() != urls.size() || ranges.equals(boundaries)) {
            return false;
        }
        for (int i = 0; i < ranges.size(); i++) {
            if (!ranges.get(i).url().equals(urls.get(i))) {
                return false;
            }
        }
        boundaries = List.copyOf(ranges);
        return true;
    }

    List<Boundary> boundaries() {
        return boundaries;
    }

    Map<String, Long> charsPerUrl() {
        return Map.copyOf(charsPerUrl);
    }
}
