package dev.caravan.processors.tuning;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * A request message's Camel headers: keys compared ignoring case, as in Camel's {@code CaseInsensitiveMap}, but hashed
 * instead of kept in a sorted tree, and iterated in the order they were first put.
 *
 * <p>Why: Camel's map is a {@code TreeMap} ordered by {@code String.CASE_INSENSITIVE_ORDER}; a request's twenty-odd
 * headers (the client's and Camel's {@code CamelHttp*}) cost four or five case-folding comparisons per put and per
 * look-up, about 4 % of the event loops' samples at 16 connections (docs/design/request-path.md, "Per-request cost").
 * Here a look-up folds the name once into a hash and compares a candidate with {@code equals}, then
 * {@code equalsIgnoreCase}.
 *
 * <p>The same answers as Camel's map for every operation but the iteration order: a key matches any key equal to it
 * ignoring case (the same folding as {@code CASE_INSENSITIVE_ORDER}); putting a key that is present replaces the value
 * and keeps the key's first spelling; a {@code null} key is refused, a {@code null} value kept. Not thread-safe, as
 * Camel's is not: a message's headers belong to the thread working on its exchange.
 */
final class HeaderMap extends AbstractMap<String, Object> {

    private static final int INITIAL = 32;

    /** Entries in the order first put; {@code size} of them are live, none removed in between. */
    private String[] keys = new String[INITIAL];
    private Object[] values = new Object[INITIAL];
    private int[] hashes = new int[INITIAL];
    /** Open addressing, twice the entries' capacity: 1 + an entry's index, or 0 for an empty slot. */
    private int[] slots = new int[INITIAL * 2];
    private int size;
    private int modCount;

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String k && indexOf(k) >= 0;
    }

    @Override
    public Object get(Object key) {
        if (!(key instanceof String k)) {
            return null;
        }
        int i = indexOf(k);
        return i >= 0 ? values[i] : null;
    }

    @Override
    public Object put(String key, Object value) {
        Objects.requireNonNull(key, "header name");
        int hash = hash(key);
        int s = slotOf(key, hash);
        int at = slots[s] - 1;
        if (at >= 0) {
            Object old = values[at];
            values[at] = value;
            return old;
        }
        if (size == keys.length) {
            grow();
            s = slotOf(key, hash);
        }
        keys[size] = key;
        values[size] = value;
        hashes[size] = hash;
        slots[s] = ++size;
        modCount++;
        return null;
    }

    @Override
    public Object remove(Object key) {
        if (!(key instanceof String k)) {
            return null;
        }
        int i = indexOf(k);
        if (i < 0) {
            return null;
        }
        Object old = values[i];
        removeAt(i);
        return old;
    }

    @Override
    public void clear() {
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(values, 0, size, null);
        Arrays.fill(slots, 0);
        size = 0;
        modCount++;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Entries();
            }

            @Override
            public int size() {
                return size;
            }

            @Override
            public void clear() {
                HeaderMap.this.clear();
            }
        };
    }

    private int indexOf(String key) {
        return slots[slotOf(key, hash(key))] - 1;
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slotOf(String key, int hash) {
        int mask = slots.length - 1;
        for (int s = hash & mask; ; s = (s + 1) & mask) {
            int at = slots[s] - 1;
            if (at < 0 || (hashes[at] == hash && same(keys[at], key))) {
                return s;
            }
        }
    }

    /** Equal ignoring case; the exact spelling, the usual case, checked first by the faster comparison. */
    private static boolean same(String stored, String key) {
        return stored.equals(key) || stored.equalsIgnoreCase(key);
    }

    /** Closes the gap, keeping the order, and re-indexes: a request's headers are few and rarely removed. */
    private void removeAt(int i) {
        int tail = size - i - 1;
        System.arraycopy(keys, i + 1, keys, i, tail);
        System.arraycopy(values, i + 1, values, i, tail);
        System.arraycopy(hashes, i + 1, hashes, i, tail);
        size--;
        keys[size] = null;
        values[size] = null;
        modCount++;
        reindex();
    }

    private void grow() {
        int capacity = keys.length * 2;
        keys = Arrays.copyOf(keys, capacity);
        values = Arrays.copyOf(values, capacity);
        hashes = Arrays.copyOf(hashes, capacity);
        slots = new int[capacity * 2];
        reindex();
    }

    private void reindex() {
        Arrays.fill(slots, 0);
        int mask = slots.length - 1;
        for (int i = 0; i < size; i++) {
            int s = hashes[i] & mask;
            while (slots[s] != 0) {
                s = (s + 1) & mask;
            }
            slots[s] = i + 1;
        }
    }

    /**
     * A hash equal for names equal ignoring case: each character folded as {@link String#equalsIgnoreCase} and
     * {@code CASE_INSENSITIVE_ORDER} fold it (upper case, then lower case), ASCII without the table look-ups.
     */
    static int hash(String name) {
        int h = 0;
        for (int i = 0, n = name.length(); i < n; i++) {
            char c = name.charAt(i);
            if (c < 0x80) {
                if (c >= 'A' && c <= 'Z') {
                    c += 'a' - 'A';
                }
            } else {
                c = Character.toLowerCase(Character.toUpperCase(c));
            }
            h = 31 * h + c;
        }
        return h ^ (h >>> 16);
    }

    private final class Entries implements Iterator<Map.Entry<String, Object>> {

        private int next;
        private int last = -1;
        private int expected = modCount;

        @Override
        public boolean hasNext() {
            return next < size;
        }

        @Override
        public Map.Entry<String, Object> next() {
            if (modCount != expected) {
                throw new ConcurrentModificationException();
            }
            if (next >= size) {
                throw new NoSuchElementException();
            }
            last = next++;
            return new Entry(last);
        }

        @Override
        public void remove() {
            if (last < 0) {
                throw new IllegalStateException();
            }
            if (modCount != expected) {
                throw new ConcurrentModificationException();
            }
            removeAt(last);
            next = last;
            last = -1;
            expected = modCount;
        }
    }

    /** An entry as of its iteration: its value is read and written through the map while the map is unchanged. */
    private final class Entry implements Map.Entry<String, Object> {

        private final int index;
        private final String key;

        Entry(int index) {
            this.index = index;
            this.key = keys[index];
        }

        @Override
        public String getKey() {
            return key;
        }

        @Override
        public Object getValue() {
            return keys[index] == key ? values[index] : get(key);
        }

        @Override
        public Object setValue(Object value) {
            if (keys[index] != key) {
                return put(key, value);
            }
            Object old = values[index];
            values[index] = value;
            return old;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && key.equals(e.getKey()) && Objects.equals(getValue(), e.getValue());
        }

        @Override
        public int hashCode() {
            return key.hashCode() ^ Objects.hashCode(getValue());
        }

        @Override
        public String toString() {
            return key + "=" + getValue();
        }
    }
}
