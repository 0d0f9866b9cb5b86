package dev.caravan.policies.tree;

import java.util.Arrays;

/**
 * One edge-labelled node. Memory is the design constraint (the tree is measured in bytes per stored character), so a
 * node holds its edge label as one {@link String} (Latin-1 text is stored one byte per character by the JVM's compact
 * strings) and its children and tenants in exact-size parallel arrays instead of maps: leaves share the empty arrays,
 * interior nodes rarely have more than a handful of children, and tenant lists are as long as the fleet at most.
 *
 * <p>Not thread-safe: {@link ApproximateRadixTree} guards every access.
 */
final class Node {

    private static final int[] NO_INTS = {};
    private static final long[] NO_LONGS = {};
    private static final Node[] NO_NODES = {};

    /** Edge label from the parent; "" only for the root. Never split inside a surrogate pair. */
    String label;
    /** Code points in {@link #label}. */
    int labelChars;
    /** Null for the root and for nodes unlinked from the tree. */
    Node parent;

    /** First code point of each child's label, ascending; parallel to {@link #children}. */
    private int[] childKeys = NO_INTS;
    private Node[] children = NO_NODES;

    /** Tenant ids on this node, parallel to {@link #stamps} (last access epoch; 0 = only passed through). */
    int[] tenants = NO_INTS;
    long[] stamps = NO_LONGS;
    /**
     * The node's owner, the tenant a prefix match reports ({@link OwnerRule}): its creator (or the owner inherited on a
     * split) under FIRST, the latest inserter through it under LATEST; -1 once that tenant left the node, or for a root
     * under FIRST, which then reports the earliest tenant still listed.
     */
    int owner = -1;
    /**
     * The pass count and the branched flag in one int, so a node is still 48 bytes with compressed references (the
     * count took the place of a {@code removed} flag, {@link #removed()} being derived instead; a separate boolean would
     * make it 56). Bits 0-30: {@link #passes()}; bit 31: {@link #branched()}.
     */
    private int passBits;

    private static final int BRANCHED = Integer.MIN_VALUE;
    private static final int COUNT = Integer.MAX_VALUE;

    Node(String label, Node parent) {
        this.label = label;
        this.labelChars = label.codePointCount(0, label.length());
        this.parent = parent;
    }

    /**
     * True once the node is unlinked, so an eviction holding a stale reference can tell: only the root has no parent
     * while linked, and only the root has an empty label.
     */
    boolean removed() {
        return parent == null && labelChars > 0;
    }

    /**
     * Inserts whose text passed through (or ended on) this node, a split's upper half inheriting the lower's count;
     * halved everywhere when the root's reaches {@link ApproximateRadixTree#PASSES_HALVING_AT} (so below 2^30, clear of
     * the flag bit), so ratios survive. Children's evictions leave it alone: it keeps counting the traffic that went on
     * into continuations since forgotten.
     */
    int passes() {
        return passBits & COUNT;
    }

    void setPasses(int passes) {
        passBits = (passBits & BRANCHED) | passes;
    }

    void addPass() {
        passBits++;
    }

    void halvePasses() {
        passBits = (passBits & BRANCHED) | ((passBits & COUNT) >> 1);
    }

    /**
     * True once two or more children have left this node at the same time: traffic branched here, a fact that
     * evicting all but one of those children (or all of them) does not undo, just as it does not undo the count. A
     * node that only ever had one child at a time (a conversation that only grows, its tail evicted and re-inserted)
     * never branched. A split's upper half starts unbranched: the branch point it inherits the count of is the lower
     * half's end, not its own.
     */
    boolean branched() {
        return passBits < 0;
    }

    Node child(int firstCodePoint) {
        int[] keys = childKeys;
        int i = Arrays.binarySearch(keys, firstCodePoint);
        return i >= 0 ? children[i] : null;
    }

    int childCount() {
        return children.length;
    }

    Node childAt(int i) {
        return children[i];
    }

    void putChild(int firstCodePoint, Node child) {
        int i = Arrays.binarySearch(childKeys, firstCodePoint);
        if (i >= 0) {
            children[i] = child;
            return;
        }
        int at = -i - 1;
        int n = childKeys.length;
        int[] keys = new int[n + 1];
        Node[] nodes = new Node[n + 1];
        System.arraycopy(childKeys, 0, keys, 0, at);
        System.arraycopy(children, 0, nodes, 0, at);
        keys[at] = firstCodePoint;
        nodes[at] = child;
        System.arraycopy(childKeys, at, keys, at + 1, n - at);
        System.arraycopy(children, at, nodes, at + 1, n - at);
        childKeys = keys;
        children = nodes;
        if (n >= 1) {
            passBits |= BRANCHED;
        }
    }

    void removeChild(int firstCodePoint) {
        int i = Arrays.binarySearch(childKeys, firstCodePoint);
        if (i < 0) {
            return;
        }
        int n = childKeys.length;
        if (n == 1) {
            childKeys = NO_INTS;
            children = NO_NODES;
            return;
        }
        int[] keys = new int[n - 1];
        Node[] nodes = new Node[n - 1];
        System.arraycopy(childKeys, 0, keys, 0, i);
        System.arraycopy(children, 0, nodes, 0, i);
        System.arraycopy(childKeys, i + 1, keys, i, n - i - 1);
        System.arraycopy(children, i + 1, nodes, i, n - i - 1);
        childKeys = keys;
        children = nodes;
    }

    int firstCodePoint() {
        return label.codePointAt(0);
    }

    private int indexOf(int tenant) {
        int[] ts = tenants;
        for (int i = 0; i < ts.length; i++) {
            if (ts[i] == tenant) {
                return i;
            }
        }
        return -1;
    }

    boolean hasTenant(int tenant) {
        return indexOf(tenant) >= 0;
    }

    long stamp(int tenant) {
        int i = indexOf(tenant);
        return i >= 0 ? stamps[i] : -1;
    }

    /** Adds the tenant with this stamp if absent; returns true when added. */
    boolean addTenant(int tenant, long stamp) {
        if (indexOf(tenant) >= 0) {
            return false;
        }
        append(tenant, stamp);
        return true;
    }

    /**
     * Adds the tenant with this stamp, or sets its stamp when present (one scan of the tenants, where
     * {@link #addTenant} then {@link #touch} would take two); returns true when added. Under the write lock only.
     */
    boolean addOrTouch(int tenant, long stamp) {
        int i = indexOf(tenant);
        if (i >= 0) {
            stamps[i] = stamp;
            return false;
        }
        append(tenant, stamp);
        return true;
    }

    private void append(int tenant, long stamp) {
        int n = tenants.length;
        int[] ts = Arrays.copyOf(tenants, n + 1);
        long[] ss = Arrays.copyOf(stamps, n + 1);
        ts[n] = tenant;
        ss[n] = stamp;
        tenants = ts;
        stamps = ss;
    }

    /**
     * Sets the tenant's stamp when present. May be called under the tree's read lock (prefix-match refresh): a racing
     * reader sees the old or the new value, both valid LRU hints, and array identity only changes under the write lock.
     */
    void touch(int tenant, long stamp) {
        int i = indexOf(tenant);
        if (i >= 0) {
            stamps[i] = stamp;
        }
    }

    boolean removeTenant(int tenant) {
        int i = indexOf(tenant);
        if (i < 0) {
            return false;
        }
        int n = tenants.length;
        if (n == 1) {
            tenants = NO_INTS;
            stamps = NO_LONGS;
        } else {
            int[] ts = new int[n - 1];
            long[] ss = new long[n - 1];
            System.arraycopy(tenants, 0, ts, 0, i);
            System.arraycopy(stamps, 0, ss, 0, i);
            System.arraycopy(tenants, i + 1, ts, i, n - i - 1);
            System.arraycopy(stamps, i + 1, ss, i, n - i - 1);
            tenants = ts;
            stamps = ss;
        }
        if (owner == tenant) {
            owner = -1;
        }
        return true;
    }

    /** True when some child carries the tenant, i.e. this node is not one of the tenant's leaves. */
    boolean childHasTenant(int tenant) {
        for (Node c : children) {
            if (c.hasTenant(tenant)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The tenant a prefix match reports: the owner if still here, else the earliest-added tenant still listed (tenants
     * keep their arrival order), else -1. SGLang takes an arbitrary tenant from its map there and caches it; the
     * earliest-listed one is as stable (it stays until it leaves) and deterministic.
     */
    int pickTenant() {
        int lt = owner;
        if (lt >= 0 && indexOf(lt) >= 0) {
            return lt;
        }
        int[] ts = tenants;
        return ts.length > 0 ? ts[0] : -1;
    }

    boolean isEmpty() {
        return tenants.length == 0 && children.length == 0;
    }
}
