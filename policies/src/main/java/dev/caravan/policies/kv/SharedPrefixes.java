package dev.caravan.policies.kv;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * How many routed requests passed through each block key of their chain, and whether requests go on from a key in
 * more than one way: what {@code kv_aware}'s {@code --kv-discount-shared-prefix} needs to find a request's <em>shared
 * branch point</em> without a tree (docs/kv-events.md, "A hot or shared prefix").
 *
 * <p>Per key: its pass count, the first next key seen after it, and whether a different next key was seen since
 * (two continuations). A chain is a path, so a key's count is at least its successors' and a walk can stop at the first
 * unknown key. {@link #sharedBlocks} is the deepest chain position that at least 1/N of all routed requests passed
 * through and from which at least two continuations leave (the keys seen after it, plus the request's own next key);
 * a conversation that only grows never branches, so its own history is never shared.
 *
 * <p>The keys are held as a trie of chain segments: a node is a run of keys that every recorded request passing
 * through its first key also passed through to its last (one count, one next key, no branch inside), split where a
 * request diverges or ends. Because a key stands for its whole prefix, how far a request follows a node is found by
 * bisection, and reading or recording a request costs a few operations per node on its path, not one per key.
 *
 * <p>Bounded: the first {@link #MAX_DEPTH} keys of a request are counted, and at most {@link #MAX_ENTRIES} keys are
 * held (each node copies its keys once: about 8 bytes a key and 80 a node). When a request's new keys would exceed
 * that, every count and the request total are halved and the keys left at 0 dropped (repeatedly if needed, down to
 * half the bound) before they are added: counts describe the recent few hundred to thousands of requests, and their
 * ratios survive. A request whose path the halving drops, or with more new keys than half the bound (never with the
 * defaults), records only the keys that fit on a path still held. Thread-safe (one lock; a request walks its path once to read and once to record).
 */
final class SharedPrefixes {

    /** Keys held at most. */
    static final int MAX_ENTRIES = 1 << 16;
    /** Leading keys of a request counted: 32,768 tokens at 16-token blocks. */
    static final int MAX_DEPTH = 2048;

    /** Keys {@code keys[from, to)}: one pass count; the last key's next key and branch flag. */
    private static final class Node {
        final long[] keys;
        final int from;
        int to;
        int passes;
        /** Next key first seen after the last key; 0 = none yet (a key equal to 0 is as unlikely as any other). */
        long next;
        boolean branched;
        Map<Long, Node> children;

        Node(long[] keys, int from, int to, int passes) {
            this.keys = keys;
            this.from = from;
            this.to = to;
            this.passes = passes;
        }

        int length() {
            return to - from;
        }

        /** Keys of {@code chain} from {@code pos} (at most {@code limit}) equal to this node's from its first. */
        int follow(KeyChain chain, int pos, int limit) {
            int n = Math.min(length(), limit);
            if (chain.get(pos + n - 1) == keys[from + n - 1]) {
                return n;
            }
            int lo = 0; // equal (the first key is how the node was found)
            int hi = n - 1; // different
            while (hi - lo > 1) {
                int mid = (lo + hi) >>> 1;
                if (chain.get(pos + mid) == keys[from + mid]) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return hi;
        }

        /** Keeps the first {@code k} keys here and moves the rest (with the children) into a new child. */
        void split(int k) {
            Node rest = new Node(keys, from + k, to, passes);
            rest.next = next;
            rest.branched = branched;
            rest.children = children;
            to = from + k;
            next = rest.keys[rest.from];
            branched = false;
            children = new HashMap<>(4);
            children.put(next, rest);
        }
    }

    private final int maxEntries;
    private final Map<Long, Node> roots = new HashMap<>();
    private int size;
    private long total;

    SharedPrefixes() {
        this(MAX_ENTRIES);
    }

    /** @param maxEntries the bound on held keys (tests use small ones); &gt;= 1 */
    SharedPrefixes(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be >= 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /**
     * Leading blocks of {@code chain} up to its shared branch point, 0 when there is none.
     *
     * @param parts the share's denominator (the candidate engine ranks); &gt;= 1
     */
    synchronized int sharedBlocks(KeyChain chain, int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be >= 1, was " + parts);
        }
        int shared = 0;
        int depth = Math.min(chain.length(), MAX_DEPTH);
        int pos = 0;
        Node node = depth == 0 ? null : roots.get(chain.get(0));
        while (node != null) {
            int m = node.follow(chain, pos, depth - pos);
            // keys before the last one followed go on the way the request does: one way only
            int last = pos + m - 1;
            boolean twoWays = m < node.length()
                    ? last + 1 < chain.length() && chain.get(last + 1) != node.keys[node.from + m]
                    : node.branched || (node.next != 0 && last + 1 < chain.length() && chain.get(last + 1) != node.next);
            if (twoWays && (long) node.passes * parts >= total) {
                shared = last + 1;
            }
            pos += m;
            if (m < node.length() || pos >= depth || node.children == null) {
                break;
            }
            node = node.children.get(chain.get(pos));
        }
        return shared;
    }

    /** Counts one routed request through the leading keys of its chain (an empty chain counts in the total only). */
    synchronized void record(KeyChain chain) {
        int depth = Math.min(chain.length(), MAX_DEPTH);
        int pos = 0;
        Node parent = null;
        Node node = depth == 0 ? null : roots.get(chain.get(0));
        while (node != null) {
            int m = node.follow(chain, pos, depth - pos);
            if (m < node.length()) {
                node.split(m);
            }
            node.passes++;
            pos += m;
            parent = node;
            node = pos < depth && node.children != null ? node.children.get(chain.get(pos)) : null;
        }
        if (pos < depth) {
            if (size + depth - pos > maxEntries) {
                halveUntil(maxEntries / 2);
                if (parent != null && parent.passes == 0) {
                    parent = null; // dropped with its path: the rest cannot be reached
                    pos = depth;
                }
            }
            int n = Math.min(depth - pos, maxEntries - size);
            if (n > 0) {
                if (parent != null) {
                    see(parent, chain.get(pos));
                }
                Node added = new Node(chain.copy(pos, pos + n), 0, n, 1);
                size += n;
                attach(parent, added);
                parent = added;
                pos += n;
            }
        }
        if (parent != null && pos == depth && depth < chain.length()) {
            see(parent, chain.get(depth));
        }
        if (++total >= Integer.MAX_VALUE) {
            halveUntil(size);
        }
    }

    /** {@link #sharedBlocks(KeyChain, int)} of one array's keys. */
    int sharedBlocks(long[] chain, int parts) {
        return sharedBlocks(KeyChain.of(chain), parts);
    }

    /** {@link #record(KeyChain)} of one array's keys. */
    void record(long[] chain) {
        record(KeyChain.of(chain));
    }

    /** The request went on from the node's last key with {@code key}. */
    private static void see(Node node, long key) {
        if (node.next == 0) {
            node.next = key;
        } else if (node.next != key) {
            node.branched = true;
        }
    }

    private void attach(Node parent, Node child) {
        if (parent == null) {
            roots.put(child.keys[child.from], child);
        } else {
            if (parent.children == null) {
                parent.children = new HashMap<>(4);
            }
            parent.children.put(child.keys[child.from], child);
        }
    }

    /** Requests counted (after halvings). */
    synchronized long total() {
        return total;
    }

    /** Keys held. */
    synchronized int size() {
        return size;
    }

    /** Passes counted through {@code key}, 0 when it is not held (a scan of every node; for tests). */
    synchronized int passes(long key) {
        Deque<Node> todo = new ArrayDeque<>(roots.values());
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            for (int i = n.from; i < n.to; i++) {
                if (n.keys[i] == key) {
                    return n.passes;
                }
            }
            if (n.children != null) {
                todo.addAll(n.children.values());
            }
        }
        return 0;
    }

    /** Halves every count and the total, dropping keys left at 0, until at most {@code target} keys are held. */
    private void halveUntil(int target) {
        do {
            total >>= 1;
            halve(roots);
        } while (size > target);
    }

    /** Halves the counts under {@code nodes}, dropping the nodes left at 0 with everything below them. */
    private void halve(Map<Long, Node> nodes) {
        Deque<Map<Long, Node>> todo = new ArrayDeque<>();
        todo.push(nodes);
        while (!todo.isEmpty()) {
            Iterator<Node> it = todo.pop().values().iterator();
            while (it.hasNext()) {
                Node n = it.next();
                n.passes >>= 1;
                if (n.passes == 0) {
                    it.remove();
                    size -= held(n);
                } else if (n.children != null) {
                    todo.push(n.children);
                }
            }
        }
    }

    /** Keys in the node and below it, all marked dropped (no passes). */
    private static int held(Node root) {
        int n = 0;
        Deque<Node> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Node node = todo.pop();
            node.passes = 0;
            n += node.length();
            if (node.children != null) {
                todo.addAll(node.children.values());
            }
        }
        return n;
    }
}
