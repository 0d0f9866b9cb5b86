package dev.caravan.policies.tree;

import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.ToLongFunction;

/**
 * A character-level, multi-tenant radix tree of the prompts the gateway routed, tenant = worker URL. It answers "how
 * much of this prompt has already been sent to some worker, and to which one", the question cache_aware asks on every
 * request, and forgets least-recently-used text per tenant so each worker's share stays within a character budget.
 *
 * <h2>Semantics (SGLang's {@code tree.rs}, v0.3.2 + latest)</h2>
 * <ul>
 *   <li>Characters are Unicode code points: edges are keyed by their first code point and never split inside a
 *       surrogate pair, and every count ({@link PrefixMatch}, per-tenant sizes, budgets) is in code points.</li>
 *   <li>{@link #insert} walks the text, splitting an edge where the text diverges (the new intermediate node inherits
 *       the old edge's tenants and owner), adds the tenant to every node on the path (adding that node's characters to
 *       the tenant's count the first time) and stamps every node on the path with a fresh epoch. <em>Deliberate
 *       difference:</em> SGLang since its PR 16097 stamps only the node where the text ends (nodes it merely joins get
 *       stamp 0); here a shared prefix is as recent as its latest use, so LRU eviction takes stale suffixes before a
 *       prefix that is still in use (which is what the engines' own LRU does, and what KV-event calibration relies
 *       on). The root holds every tenant and is never evicted.</li>
 *   <li>{@link #prefixMatch} follows whole edges, counts a partially matching last edge's shared characters and stops
 *       there; the tenant reported is the deepest node's owner under the tree's {@link OwnerRule}: by default
 *       SGLang's ({@link OwnerRule#FIRST}: the tenant that created the node, while it is still there, then the earliest
 *       tenant still on it), or the latest inserter ({@link OwnerRule#LATEST}). Every eighth match refreshes that
 *       tenant's stamp on that node (SGLang's probabilistic refresh, made deterministic by a counter).</li>
 *   <li>Eviction ({@link #evictTenantBySize} and friends) is LRU per tenant by a monotonic epoch counter, never wall
 *       time: leaves of over-budget tenants are popped oldest first; removing a tenant from a leaf subtracts that edge's
 *       characters, unlinks nodes left with neither tenants nor children, and turns the parent into a candidate leaf for
 *       that tenant. A tenant within budget is never touched.</li>
 *   <li>Invariant: a tenant on a node is on all of the node's ancestors, so each tenant's count is the sum of the label
 *       lengths of the nodes carrying it.</li>
 * </ul>
 *
 * <h2>Thread safety</h2>
 * One {@link ReentrantReadWriteLock} per tree (one tree per model). Matches and statistics take the read lock, inserts and
 * removals the write lock; both hold it for one walk of one prompt (microseconds). A finer scheme (per-node locks, as
 * SGLang's DashMaps) was rejected: cache_aware inserts on every request, so every decision writes anyway, and per-node
 * locking would cost memory in every node, which is what the tree is measured on. Eviction scans under the read lock
 * (matches continue) and then removes in batches of {@value #EVICTION_BATCH} leaves per write-lock hold, re-checking each
 * leaf, so a large eviction never stalls requests for the whole pass. The one write done under the read lock, the
 * stamp refresh in {@link #prefixMatch}, stores a long into an existing array slot: a racing reader sees the old or the
 * new stamp, both valid LRU hints.
 *
 * <pre>{@code
 * ApproximateRadixTree tree = new ApproximateRadixTree();            // OwnerRule.FIRST, as SGLang
 * tree.insert("You are a helpful assistant. Hi", "http://w1:8000");
 * PrefixMatch m = tree.prefixMatch("You are a helpful assistant. Bye");   // matched 29 of 32, tenant w1
 * tree.evictTenantBySize(1 << 26);
 * }</pre>
 */
public final class ApproximateRadixTree {

    /** Leaves removed per write-lock hold during eviction. */
    static final int EVICTION_BATCH = 512;
    /** Root pass count at which every node's {@link Node#passes()} is halved (far from int overflow). */
    static final int PASSES_HALVING_AT = 1 << 30;
    /** Characters {@link #commonPrefix} compares at a time on long edges. */
    static final int BLOCK = 256;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Node root = new Node("", null);
    /** {@link OwnerRule#LATEST}: every insert takes over the nodes on its path. */
    private final boolean latestOwns;
    /** SGLang's global epoch: stamps order accesses, never measure time. */
    private final AtomicLong epoch = new AtomicLong();
    private final AtomicLong matches = new AtomicLong();

    // Tenant table, written under the write lock (ids are stable for the tree's lifetime; names are worker URLs); the
    // id map is concurrent so the match views (HeldChars) can resolve a name after the lock is released.
    private final Map<String, Integer> tenantIds = new ConcurrentHashMap<>();
    private String[] tenantNames = new String[8];
    private long[] tenantChars = new long[8];
    private boolean[] tenantPresent = new boolean[8];

    // Structure statistics, guarded by the lock.
    private long storedChars;
    private long nodeCount = 1;

    /** A tree reporting SGLang's owner of a shared node ({@link OwnerRule#FIRST}). */
    public ApproximateRadixTree() {
        this(OwnerRule.FIRST);
    }

    /** A tree reporting the owner of a shared node by {@code ownerRule}. */
    public ApproximateRadixTree(OwnerRule ownerRule) {
        this.latestOwns = ownerRule == OwnerRule.LATEST;
    }

    public OwnerRule ownerRule() {
        return latestOwns ? OwnerRule.LATEST : OwnerRule.FIRST;
    }

    // ------------------------------------------------------------------------------------------------ insert / match

    /**
     * Records that {@code text} was routed to {@code tenant}. Registers the tenant on first use; inserting "" only does
     * that, which is how workers are seeded. Returns the characters the tenant holds after the insert (what
     * {@link #tenantChars} would answer), so a caller enforcing a budget on insert needs no second lock.
     */
    public long insert(String text, String tenant) {
        lock.writeLock().lock();
        try {
            int t = register(tenant);
            long now = epoch.incrementAndGet();
            if (!text.isEmpty()) { // seeding a worker is no traffic
                root.addPass();
                if (root.passes() >= PASSES_HALVING_AT) {
                    halvePasses();
                }
            }
            root.addTenant(t, 0);
            if (latestOwns) {
                root.owner = t;
            }
            Node node = root;
            int pos = 0;
            int len = text.length();
            while (pos < len) {
                int cp = text.codePointAt(pos);
                Node child = node.child(cp);
                if (child == null) {
                    Node leaf = new Node(text.substring(pos), node);
                    leaf.setPasses(1);
                    leaf.addTenant(t, now);
                    leaf.owner = t;
                    node.putChild(cp, leaf);
                    tenantChars[t] += leaf.labelChars;
                    storedChars += leaf.labelChars;
                    nodeCount++;
                    return tenantChars[t];
                }
                int k = commonPrefix(child.label, text, pos);
                if (k < child.label.length()) {
                    child = split(node, cp, child, k);
                }
                child.addPass();
                // the whole path was just used: a shared prefix is as recent as its use
                if (child.addOrTouch(t, now)) {
                    tenantChars[t] += child.labelChars;
                }
                if (latestOwns) {
                    child.owner = t; // FIRST (SGLang): walking through a node never changes its owner
                }
                node = child;
                pos += k;
            }
            return tenantChars[t];
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Splits {@code child} after its first {@code k} chars; the new upper node inherits tenants, stamps and owner. */
    private Node split(Node parent, int cp, Node child, int k) {
        Node mid = new Node(child.label.substring(0, k), parent);
        mid.tenants = child.tenants.clone();
        mid.stamps = child.stamps.clone();
        mid.owner = child.owner;
        mid.setPasses(child.passes());
        child.label = child.label.substring(k);
        child.labelChars -= mid.labelChars;
        child.parent = mid;
        mid.putChild(child.firstCodePoint(), child);
        parent.putChild(cp, mid);
        nodeCount++;
        return mid;
    }

    /**
     * Chars of {@code label} equal to {@code text} from {@code pos}, backed off so the split point never falls between
     * the two halves of a surrogate pair. A walk compares every character of the prompt it matches, so this loop is
     * most of a long prompt's decision: edges of {@value #BLOCK} characters or more are compared a block at a time
     * (copied out with {@link String#getChars} and compared with {@link Arrays#mismatch(char[], char[])}, both
     * vectorised by the JIT), two to three times faster per character than one {@code charAt} pair at a time.
     */
    static int commonPrefix(String label, String text, int pos) {
        int max = Math.min(label.length(), text.length() - pos);
        int k = max >= BLOCK ? blockPrefix(label, text, pos, max) : 0;
        while (k < max && label.charAt(k) == text.charAt(pos + k)) {
            k++;
        }
        if (k < label.length() && k > 0 && Character.isHighSurrogate(label.charAt(k - 1))) {
            k--;
        }
        return k;
    }

    /**
     * The common prefix of whole {@value #BLOCK}-char blocks: the first mismatch's index, or the end of the last whole
     * block when every block matched (the caller finishes the tail char by char). The two buffers are per call (1 KB,
     * allocated in the thread's TLAB), so concurrent readers share nothing.
     */
    private static int blockPrefix(String label, String text, int pos, int max) {
        char[] a = new char[BLOCK];
        char[] b = new char[BLOCK];
        int k = 0;
        while (max - k >= BLOCK) {
            label.getChars(k, k + BLOCK, a, 0);
            text.getChars(pos + k, pos + k + BLOCK, b, 0);
            int m = Arrays.mismatch(a, b);
            if (m >= 0) {
                return k + m;
            }
            k += BLOCK;
        }
        return k;
    }

    /** How much of {@code text} the tree holds and one tenant holding it; see the class comment. */
    public PrefixMatch prefixMatch(String text) {
        return walk(text, 0, null, null, true);
    }

    /**
     * {@link #prefixMatch} and {@link #sharedPrefixChars} of the same text in one walk (and under one read lock): what
     * cache_aware's shared-prefix discount reads on every hit, for the price of one pass over the prompt.
     *
     * @param parts the share's denominator, as {@link #sharedPrefixChars}; &gt;= 1
     */
    public SharedMatch matchWithShared(String text, int parts) {
        checkParts(parts);
        long[] shared = new long[1];
        PrefixMatch match = walk(text, parts, null, shared, true);
        return new SharedMatch(match, shared[0]);
    }

    /**
     * The one walk behind the matches and the shared branch points: follows whole edges of {@code text} from the root,
     * counting matched code points, and stops after a partially matching edge. With {@code parts > 0} it records every
     * shared branch point on the way (to {@code each} when not null, the deepest into {@code sharedOut[0]}); with
     * {@code match} it returns the deepest node's tenant as a {@link PrefixMatch} (refreshing its stamp every eighth
     * match), else null.
     */
    private PrefixMatch walk(String text, int parts, LongConsumer each, long[] sharedOut, boolean match) {
        int len = text.length();
        long input = match ? text.codePointCount(0, len) : 0;
        lock.readLock().lock();
        try {
            long total = root.passes();
            Node node = root;
            Node deepest = root;
            long matched = 0;
            long shared = 0;
            int pos = 0;
            while (pos < len) {
                Node child = node.child(text.codePointAt(pos));
                // branching here: the text would leave it as a new continuation, or the node branched before (its
                // other continuations may since be evicted; its count still holds their traffic)
                if (parts > 0 && node != root && (node.branched() || (child == null && node.childCount() > 0))
                        && (long) node.passes() * parts >= total) {
                    shared = matched;
                    if (each != null) {
                        each.accept(shared);
                    }
                }
                if (child == null) {
                    break;
                }
                deepest = child;
                int k = commonPrefix(child.label, text, pos);
                if (k < child.label.length()) {
                    // diverges inside the edge (two continuations) unless the text simply ends there
                    matched += child.label.codePointCount(0, k);
                    if (parts > 0 && pos + k < len && k > 0 && (long) child.passes() * parts >= total) {
                        shared = matched;
                        if (each != null) {
                            each.accept(shared);
                        }
                    }
                    break;
                }
                matched += child.labelChars;
                pos += k;
                node = child;
            }
            if (sharedOut != null) {
                sharedOut[0] = shared;
            }
            if (!match) {
                return null;
            }
            int t = deepest.pickTenant();
            if (t < 0) {
                return new PrefixMatch(null, matched, input);
            }
            if (deepest != root && (matches.incrementAndGet() & 7) == 0) {
                deepest.touch(t, epoch.incrementAndGet());
            }
            return new PrefixMatch(tenantNames[t], matched, input);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * For each tenant holding some prefix of {@code text}, how many code points of it that tenant holds (tenants that
     * hold nothing beyond the root are absent). One walk; used when a decision must weigh several workers' caches.
     */
    public Map<String, Long> matchedCharsByTenant(String text) {
        int len = text.length();
        lock.readLock().lock();
        try {
            // the deepest matched node carrying each tenant, by tenant id, plus one (0: none): array stores on the
            // path, and the map a view over them, so a prefix every worker holds costs no map entry per worker
            long[] held = new long[tenantIds.size()];
            Node node = root;
            long matched = 0;
            int pos = 0;
            while (pos < len) {
                Node child = node.child(text.codePointAt(pos));
                if (child == null) {
                    break;
                }
                int k = commonPrefix(child.label, text, pos);
                boolean partial = k < child.label.length();
                matched += partial ? child.label.codePointCount(0, k) : child.labelChars;
                for (int t : child.tenants) {
                    held[t] = matched + 1;
                }
                if (partial) {
                    break;
                }
                pos += k;
                node = child;
            }
            return new HeldChars(held, tenantNames);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * {@link #matchedCharsByTenant}'s answer: a read-only map over the walk's array, by tenant id. {@link #get} finds
     * the id in the tree's tenant table (concurrent, and an id never changes), so a caller asking for a few workers
     * pays for those; iterating builds the entries from the names captured under the lock.
     */
    private final class HeldChars extends AbstractMap<String, Long> {
        private final long[] held;
        private final String[] names;

        HeldChars(long[] held, String[] names) {
            this.held = held;
            this.names = names;
        }

        @Override
        public Long get(Object tenant) {
            Integer id = tenant == null ? null : tenantIds.get(tenant);
            return id == null || id >= held.length || held[id] == 0 ? null : held[id] - 1;
        }

        @Override
        public boolean containsKey(Object tenant) {
            return get(tenant) != null;
        }

        @Override
        public Set<Entry<String, Long>> entrySet() {
            Map<String, Long> entries = new LinkedHashMap<>();
            for (int t = 0; t < held.length; t++) {
                if (held[t] != 0) {
                    entries.put(names[t], held[t] - 1);
                }
            }
            return Collections.unmodifiableMap(entries).entrySet();
        }
    }

    /**
     * Code points of the longest prefix of {@code text} that ends at a <em>shared branch point</em>: a point on the
     * text's matched path from which at least two continuations leave (the tree's children there, plus the text itself
     * when it would branch off there) or have left since the node was created (children since evicted still count, as
     * their traffic still counts in the node's passes: a preamble whose older continuations the tree forgot, with one
     * recent one left, stays shared) and through which at least {@code 1/parts} of all inserts so far passed. Such a
     * prefix, a preamble that many conversations or requests go on from, is worth little as a reason to pick a worker:
     * it carries so much traffic that every worker can be expected to hold it. 0 when there is none (or no insert yet).
     * A conversation that only grows never branches, so its own history is never shared, however much traffic it has.
     *
     * @param parts the share's denominator, e.g. the number of healthy workers; &gt;= 1
     */
    public long sharedPrefixChars(String text, int parts) {
        return sharedWalk(text, parts, null);
    }

    /**
     * Every shared branch point on the text's path, as {@link #sharedPrefixChars} defines them, in code points from the
     * shallowest to the deepest ({@link #sharedPrefixChars} is the last, or 0 for none): a hot tenant's prompt and,
     * deeper, its requests' own branch points (request numbers 1, 10-19, 100-199...) when those too carry 1/parts of
     * the traffic, so a caller can choose among the nested prefixes rather than take the deepest.
     *
     * @param parts the share's denominator; &gt;= 1
     */
    public long[] sharedBranchPoints(String text, int parts) {
        Points points = new Points();
        sharedWalk(text, parts, points);
        return Arrays.copyOf(points.chars, points.size);
    }

    /** A growable list of branch points' lengths. */
    private static final class Points implements LongConsumer {
        long[] chars = new long[4];
        int size;

        @Override
        public void accept(long value) {
            if (size == chars.length) {
                chars = Arrays.copyOf(chars, size * 2);
            }
            chars[size++] = value;
        }
    }

    /** One walk for both of the above; {@code each} (when not null) is given every shared point, shallowest first. */
    private long sharedWalk(String text, int parts, LongConsumer each) {
        checkParts(parts);
        long[] shared = new long[1];
        walk(text, parts, each, shared, false);
        return shared[0];
    }

    private static void checkParts(int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be >= 1, was " + parts);
        }
    }

    /** Halves every node's pass count (under the write lock), keeping their ratios. */
    private void halvePasses() {
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            Node n = stack.pop();
            n.halvePasses();
            for (int i = 0, c = n.childCount(); i < c; i++) {
                stack.push(n.childAt(i));
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ tenants

    private int register(String tenant) {
        Integer id = tenantIds.get(tenant);
        int t;
        if (id == null) {
            t = tenantIds.size();
            tenantIds.put(tenant, t);
            if (t == tenantNames.length) {
                tenantNames = Arrays.copyOf(tenantNames, t * 2);
                tenantChars = Arrays.copyOf(tenantChars, t * 2);
                tenantPresent = Arrays.copyOf(tenantPresent, t * 2);
            }
            tenantNames[t] = tenant;
        } else {
            t = id;
        }
        tenantPresent[t] = true;
        return t;
    }

    /**
     * Removes every trace of a tenant (SGLang's {@code remove_tenant}): drops it from each node carrying it, unlinks nodes
     * left empty and forgets its count. Other tenants' text and matches are untouched. Returns the characters it held.
     */
    public long removeTenant(String tenant) {
        lock.writeLock().lock();
        try {
            Integer id = tenantIds.get(tenant);
            if (id == null || !tenantPresent[id]) {
                return 0;
            }
            int t = id;
            // Pre-order collection of the nodes carrying t (they form a subtree containing the root), then removal in
            // reverse so children are emptied before their parents are checked.
            List<Node> carrying = new ArrayList<>();
            ArrayDeque<Node> stack = new ArrayDeque<>();
            stack.push(root);
            while (!stack.isEmpty()) {
                Node n = stack.pop();
                carrying.add(n);
                for (int i = 0, c = n.childCount(); i < c; i++) {
                    Node child = n.childAt(i);
                    if (child.hasTenant(t)) {
                        stack.push(child);
                    }
                }
            }
            for (int i = carrying.size() - 1; i >= 0; i--) {
                Node n = carrying.get(i);
                n.removeTenant(t);
                if (n != root && n.isEmpty()) {
                    unlink(n);
                }
            }
            long held = tenantChars[t];
            tenantChars[t] = 0;
            tenantPresent[t] = false;
            return held;
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void unlink(Node n) {
        n.parent.removeChild(n.firstCodePoint());
        n.parent = null; // marks it removed (Node.removed())
        storedChars -= n.labelChars;
        nodeCount--;
    }

    /** Characters (code points) held by each present tenant; a snapshot in no particular order. */
    public Map<String, Long> tenantCharCounts() {
        lock.readLock().lock();
        try {
            Map<String, Long> out = new LinkedHashMap<>();
            for (int t = 0; t < tenantIds.size(); t++) {
                if (tenantPresent[t]) {
                    out.put(tenantNames[t], tenantChars[t]);
                }
            }
            return Collections.unmodifiableMap(out);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Characters held by one tenant; 0 when unknown. */
    public long tenantChars(String tenant) {
        lock.readLock().lock();
        try {
            Integer id = tenantIds.get(tenant);
            return id == null || !tenantPresent[id] ? 0 : tenantChars[id];
        } finally {
            lock.readLock().unlock();
        }
    }

    public boolean hasTenant(String tenant) {
        lock.readLock().lock();
        try {
            Integer id = tenantIds.get(tenant);
            return id != null && tenantPresent[id];
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Distinct characters stored in edge labels (shared text counted once): the denominator of bytes per char. */
    public long storedChars() {
        lock.readLock().lock();
        try {
            return storedChars;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Nodes including the root. */
    public long nodeCount() {
        lock.readLock().lock();
        try {
            return nodeCount;
        } finally {
            lock.readLock().unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ eviction

    /**
     * Evicts least-recently-used text until every tenant holds at most {@code maxChars} characters (SGLang's
     * {@code evict_tenant_by_size}: a per-tenant budget). Returns the characters removed from tenant counts.
     */
    public long evictTenantBySize(long maxChars) {
        return evictTenantsBySize(tenant -> maxChars);
    }

    /** As {@link #evictTenantBySize(long)} with a budget per tenant (per-worker overrides from engine capacity). */
    public long evictTenantsBySize(ToLongFunction<String> maxCharsPerTenant) {
        return evict(tenant -> Math.max(0, maxCharsPerTenant.applyAsLong(tenant)), null);
    }

    /** Evicts one tenant's least-recently-used text until it holds at most {@code maxChars}; others are untouched. */
    public long evictTenantTo(String tenant, long maxChars) {
        return evict(t -> Math.max(0, maxChars), tenant);
    }

    /**
     * Evicts about {@code chars} characters of one tenant, least recently used first (whole edges, so it may remove a
     * little more). Used when an engine reports it evicted that much cache.
     */
    public long evictTenantChars(String tenant, long chars) {
        long held = tenantChars(tenant);
        return evict(t -> Math.max(0, held - chars), tenant);
    }

    private record Leaf(long stamp, Node node, int tenant) {
    }

    /**
     * Two phases: scan under the read lock for the leaves of over-budget tenants, then pop them oldest first in batches
     * under the write lock, re-validating each popped leaf against concurrent inserts, matches and removals.
     */
    private long evict(ToLongFunction<String> budget, String only) {
        long[] target;
        PriorityQueue<Leaf> heap = new PriorityQueue<>((a, b) -> Long.compare(a.stamp, b.stamp));
        lock.readLock().lock();
        try {
            int n = tenantIds.size();
            target = new long[n];
            boolean[] over = new boolean[n];
            boolean any = false;
            for (int t = 0; t < n; t++) {
                target[t] = Long.MAX_VALUE;
                if (tenantPresent[t] && (only == null || only.equals(tenantNames[t]))) {
                    target[t] = budget.applyAsLong(tenantNames[t]);
                    over[t] = tenantChars[t] > target[t];
                    any |= over[t];
                }
            }
            if (!any) {
                return 0;
            }
            collectLeaves(over, heap);
        } finally {
            lock.readLock().unlock();
        }
        long evicted = 0;
        while (!heap.isEmpty()) {
            lock.writeLock().lock();
            try {
                for (int i = 0; i < EVICTION_BATCH && !heap.isEmpty(); i++) {
                    evicted += evictOne(heap.poll(), target, heap);
                }
            } finally {
                lock.writeLock().unlock();
            }
        }
        return evicted;
    }

    private void collectLeaves(boolean[] over, PriorityQueue<Leaf> heap) {
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            Node n = stack.pop();
            boolean relevant = false;
            for (int t : n.tenants) {
                if (t < over.length && over[t]) {
                    relevant = true;
                    if (n != root && !n.childHasTenant(t)) {
                        heap.add(new Leaf(n.stamp(t), n, t));
                    }
                }
            }
            if (relevant) {
                for (int i = 0, c = n.childCount(); i < c; i++) {
                    stack.push(n.childAt(i));
                }
            }
        }
    }

    private long evictOne(Leaf leaf, long[] target, PriorityQueue<Leaf> heap) {
        int t = leaf.tenant;
        Node n = leaf.node;
        if (!tenantPresent[t] || tenantChars[t] <= target[t]) {
            return 0;
        }
        if (n.removed() || !n.hasTenant(t) || n.childHasTenant(t)) {
            return 0;
        }
        long stamp = n.stamp(t);
        if (stamp > leaf.stamp) {
            heap.add(new Leaf(stamp, n, t)); // used since the scan: reconsider in its new place
            return 0;
        }
        n.removeTenant(t);
        tenantChars[t] -= n.labelChars;
        Node parent = n.parent;
        if (n.isEmpty()) {
            unlink(n);
        }
        if (parent != root && parent.hasTenant(t) && !parent.childHasTenant(t)) {
            heap.add(new Leaf(parent.stamp(t), parent, t));
        }
        return n.labelChars;
    }

    // ------------------------------------------------------------------------------------------------ verification

    /**
     * Recounts every tenant's characters from the structure and checks the tree's invariants; for tests. Returns the
     * recount (tenant → chars, present tenants only).
     *
     * @throws IllegalStateException describing the first violated invariant
     */
    Map<String, Long> verify() {
        lock.readLock().lock();
        try {
            long[] counts = new long[tenantIds.size()];
            long stored = 0;
            long nodes = 0;
            ArrayDeque<Node> stack = new ArrayDeque<>();
            stack.push(root);
            while (!stack.isEmpty()) {
                Node n = stack.pop();
                nodes++;
                stored += n.labelChars;
                if (n != root && n.label.isEmpty()) {
                    throw new IllegalStateException("empty label below the root");
                }
                if (n.labelChars != n.label.codePointCount(0, n.label.length())) {
                    throw new IllegalStateException("cached label length wrong for '" + n.label + "'");
                }
                for (int t : n.tenants) {
                    counts[t] += n.labelChars;
                    if (n.parent != null && !n.parent.hasTenant(t)) {
                        throw new IllegalStateException("tenant " + tenantNames[t] + " on a node but not its parent");
                    }
                }
                for (int i = 0, c = n.childCount(); i < c; i++) {
                    Node child = n.childAt(i);
                    if (child.parent != n || child.removed()) {
                        throw new IllegalStateException("broken parent link under '" + n.label + "'");
                    }
                    if (n.child(child.firstCodePoint()) != child) {
                        throw new IllegalStateException("child keyed by the wrong code point: '" + child.label + "'");
                    }
                    if (child.passes() > n.passes()) {
                        throw new IllegalStateException("more passes through '" + child.label + "' than its parent");
                    }
                    if (c >= 2 && !n.branched()) {
                        throw new IllegalStateException("'" + n.label + "' has " + c + " children but never branched");
                    }
                    stack.push(child);
                }
            }
            if (stored != storedChars || nodes != nodeCount) {
                throw new IllegalStateException("stats drifted: stored " + storedChars + " vs " + stored + ", nodes "
                        + nodeCount + " vs " + nodes);
            }
            Map<String, Long> out = new HashMap<>();
            for (int t = 0; t < counts.length; t++) {
                if (tenantPresent[t]) {
                    out.put(tenantNames[t], counts[t]);
                    if (counts[t] != tenantChars[t]) {
                        throw new IllegalStateException("tenant " + tenantNames[t] + " count " + tenantChars[t]
                                + " but recount " + counts[t]);
                    }
                } else if (counts[t] != 0) {
                    throw new IllegalStateException("removed tenant " + tenantNames[t] + " still on nodes");
                }
            }
            return out;
        } finally {
            lock.readLock().unlock();
        }
    }
}
