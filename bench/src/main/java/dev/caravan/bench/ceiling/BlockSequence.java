package dev.caravan.bench.ceiling;

import java.util.Arrays;

/**
 * The KV blocks a workload asked a fleet for, in the order it asked: a prefix tree of blocks (a block's parent is the
 * block before it in its prompt, so prompts that share a prefix share a path) and a sequence of events on that tree.
 * An <b>admit</b> is a prompt arriving: it references the path from the root to its last full block, and its first
 * {@code countable} blocks may be served from a cache (an engine always recomputes at least one prompt token, so a
 * block-aligned prompt's last block never counts). A <b>remember</b> is a finished request whose prompt and answer
 * blocks the engine now holds: it references a path, but nothing is served. The ceilings ({@link PooledLru},
 * {@link Belady}) replay these events offline. Not thread-safe.
 */
public final class BlockSequence {

    private final LongIntMap ids = new LongIntMap();
    private int[] parent = new int[1024];
    private int[] depth = new int[1024];
    private int blocks;
    private int maxDepth = -1;
    private int[] leaf = new int[1024];
    private int[] countable = new int[1024];
    private int events;
    private int admits;

    /**
     * The id of the block named {@code hash}, added as a child of {@code parentId} (-1: a prompt's first block) when it
     * is new. Ids are dense, from 0, in order of first appearance.
     */
    public int block(long hash, int parentId) {
        int id = ids.get(hash);
        if (id >= 0) {
            return id;
        }
        id = blocks++;
        parent = grown(parent, blocks);
        depth = grown(depth, blocks);
        parent[id] = parentId;
        depth[id] = parentId < 0 ? 0 : depth[parentId] + 1;
        maxDepth = Math.max(maxDepth, depth[id]);
        ids.putNew(hash, id);
        return id;
    }

    /**
     * A prompt arrives.
     *
     * @param leafBlock  its last full block, or -1 when it has none
     * @param countableBlocks how many of its leading blocks a cache may serve
     */
    public void admit(int leafBlock, int countableBlocks) {
        add(leafBlock, Math.max(0, countableBlocks));
        admits++;
    }

    /** A finished request's prompt and answer, up to {@code leafBlock}, are now held by the engine that served it. */
    public void remember(int leafBlock) {
        add(leafBlock, -1);
    }

    private void add(int leafBlock, int c) {
        events++;
        leaf = grown(leaf, events);
        countable = grown(countable, events);
        leaf[events - 1] = leafBlock;
        countable[events - 1] = c;
    }

    /** Distinct blocks. */
    public int blocks() {
        return blocks;
    }

    public int events() {
        return events;
    }

    /** Admit events, i.e. prompts. */
    public int admits() {
        return admits;
    }

    boolean isAdmit(int event) {
        return countable[event] >= 0;
    }

    /** Leading blocks of event {@code event}'s path a cache may serve (0 for a remember). */
    int countable(int event) {
        return Math.max(0, countable[event]);
    }

    /** Position of a block in its prompts, from 0. */
    int depth(int block) {
        return depth[block];
    }

    /** A buffer long enough for any {@link #path}. */
    int[] pathBuffer() {
        return new int[maxDepth + 1];
    }

    /** Fills {@code buf[0..n)} with event {@code event}'s path from the root, and returns n. */
    int path(int event, int[] buf) {
        int b = leaf[event];
        if (b < 0) {
            return 0;
        }
        int n = depth[b] + 1;
        for (; b >= 0; b = parent[b]) {
            buf[depth[b]] = b;
        }
        return n;
    }

    private static int[] grown(int[] a, int min) {
        return a.length >= min ? a : Arrays.copyOf(a, Math.max(min, a.length * 2));
    }
}
