package dev.caravan.processors;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An exchange's property map with a slot for each {@link ExchangeProperty} name: the steps' own properties are read and
 * written at a fixed index, with a volatile read or write, where a {@link ConcurrentHashMap} hashes the name, walks a
 * bin and, to write, compares and swaps or locks the bin. Any other name (Camel's, a YAML step's of its own) is kept
 * in a {@code ConcurrentHashMap} beside the slots.
 *
 * <p>Why: a request sets some 30 properties and reads them about a hundred times, ~7 % of the event loops' samples
 * under {@code ConcurrentHashMap} (design/request-path.md, "Per-request cost").
 *
 * <p>Thread-safe as {@code ConcurrentHashMap} is for the operations an exchange's properties see: each read sees the
 * latest completed write of its key; iteration is weakly consistent; null keys and values are refused. A name gets its
 * slot when the first {@code ExchangeProperty} of that name is created; a map made before that keeps the name among
 * its other names, so every map keeps each name in one place.
 */
public final class PropertyMap extends AbstractMap<String, Object> {

    private static final Map<String, Integer> SLOTS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final Object[] slots = new Object[NEXT.get()];
    private volatile Map<String, Object> others;

    /** The slot of {@code name}, the same for every property of that name. */
    static int slotOf(String name) {
        return SLOTS.computeIfAbsent(name, n -> NEXT.getAndIncrement());
    }

    /** The value in {@code slot} (of {@link #slotOf} {@code name}), or null. */
    Object get(int slot, String name) {
        return slot < slots.length ? SLOT.getVolatile(slots, slot) : othersGet(name);
    }

    /**
     * Sets (null: removes) the value in {@code slot} (of {@link #slotOf} {@code name}): a release store, so whoever
     * reads the value sees what the writer did before it, as with {@code ConcurrentHashMap.put}.
     */
    void set(int slot, String name, Object value) {
        if (slot < slots.length) {
            SLOT.setRelease(slots, slot, value);
        } else if (value != null) {
            others().put(name, value);
        } else {
            othersRemove(name);
        }
    }

    /** The slot of {@code key} in this map, or -1 when it is kept among the other names. */
    private int indexOf(Object key) {
        Integer slot = key instanceof String ? SLOTS.get(key) : null;
        return slot != null && slot < slots.length ? slot : -1;
    }

    @Override
    public Object get(Object key) {
        int i = indexOf(Objects.requireNonNull(key));
        return i >= 0 ? SLOT.getVolatile(slots, i) : othersGet(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public Object put(String key, Object value) {
        Objects.requireNonNull(value);
        int i = indexOf(Objects.requireNonNull(key));
        return i >= 0 ? SLOT.getAndSet(slots, i, value) : others().put(key, value);
    }

    @Override
    public Object remove(Object key) {
        int i = indexOf(Objects.requireNonNull(key));
        return i >= 0 ? SLOT.getAndSet(slots, i, (Object) null) : othersRemove(key);
    }

    @Override
    public void clear() {
        for (int i = 0; i < slots.length; i++) {
            SLOT.setVolatile(slots, i, (Object) null);
        }
        Map<String, Object> o = others;
        if (o != null) {
            o.clear();
        }
    }

    @Override
    public int size() {
        int n = 0;
        for (int i = 0; i < slots.length; i++) {
            if (SLOT.getVolatile(slots, i) != null) {
                n++;
            }
        }
        Map<String, Object> o = others;
        return o == null ? n : n + o.size();
    }

    @Override
    public boolean isEmpty() {
        for (int i = 0; i < slots.length; i++) {
            if (SLOT.getVolatile(slots, i) != null) {
                return false;
            }
        }
        Map<String, Object> o = others;
        return o == null || o.isEmpty();
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Entries(snapshot());
            }

            @Override
            public int size() {
                return PropertyMap.this.size();
            }
        };
    }

    /** The entries present now: the slots' names are looked up only here, when the map is walked (copies, logs). */
    private List<Map.Entry<String, Object>> snapshot() {
        List<Map.Entry<String, Object>> out = new ArrayList<>();
        for (Map.Entry<String, Integer> name : SLOTS.entrySet()) {
            int i = name.getValue();
            Object value = i < slots.length ? SLOT.getVolatile(slots, i) : null;
            if (value != null) {
                out.add(new SimpleImmutableEntry<>(name.getKey(), value));
            }
        }
        Map<String, Object> o = others;
        if (o != null) {
            o.forEach((k, v) -> out.add(new SimpleImmutableEntry<>(k, v)));
        }
        return out;
    }

    private Object othersGet(Object key) {
        Map<String, Object> o = others;
        return o == null ? null : o.get(key);
    }

    private Object othersRemove(Object key) {
        Map<String, Object> o = others;
        return o == null ? null : o.remove(key);
    }

    private Map<String, Object> others() {
        Map<String, Object> o = others;
        if (o == null) {
            synchronized (this) {
                o = others;
                if (o == null) {
                    o = new ConcurrentHashMap<>(8);
                    others = o;
                }
            }
        }
        return o;
    }

    /** Walks a snapshot; {@code remove()} removes the last entry's key from the map. */
    private final class Entries implements Iterator<Map.Entry<String, Object>> {

        private final List<Map.Entry<String, Object>> entries;
        private int next;

        Entries(List<Map.Entry<String, Object>> entries) {
            this.entries = entries;
        }

        @Override
        public boolean hasNext() {
            return next < entries.size();
        }

        @Override
        public Map.Entry<String, Object> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return entries.get(next++);
        }

        @Override
        public void remove() {
            if (next == 0) {
                throw new IllegalStateException();
            }
            PropertyMap.this.remove(entries.get(next - 1).getKey());
        }
    }
}
