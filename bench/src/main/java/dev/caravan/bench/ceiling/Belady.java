package dev.caravan.bench.ceiling;

import java.util.Arrays;

/**
 * The Belady ceiling: the most prompt blocks any eviction schedule could serve from one cache with the whole fleet's
 * KV capacity, knowing the future, for the workload's {@link BlockSequence} — and therefore at least what any router
 * over engines of that total capacity can serve (docs/design/ceilings.md has the argument).
 *
 * <p>Every reference to a block opens an interval that ends at the block's next reference; holding the block over the
 * interval serves one block if that next reference is countable (an admit within its countable blocks), nothing
 * otherwise, because a remember or an uncountable position recomputes the block anyway. After each event the cache
 * keeps the blocks whose intervals end soonest and evicts the one ending last (Belady's rule; a useless interval ends
 * "never"); among equal ends the deeper block goes first, so whenever a block is served its whole prefix is cached
 * too. The cache is an indexed max-heap on (end of interval, depth): O(log capacity) per block reference.
 */
public final class Belady {

    private static final int NEVER = Integer.MAX_VALUE;

    private Belady() {
    }

    /** Blocks served to each admit, in admit order. */
    public static int[] hits(BlockSequence s, int capacityBlocks) {
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("capacityBlocks must be >= 1, was " + capacityBlocks);
        }
        int[] path = s.pathBuffer();
        int[][] ends = intervalEnds(s, path);
        Heap cache = new Heap(s);
        int[] hits = new int[s.admits()];
        int admit = 0;
        for (int e = 0; e < s.events(); e++) {
            int len = s.path(e, path);
            if (s.isAdmit(e)) {
                int limit = Math.min(len, s.countable(e));
                int h = 0;
                while (h < limit && cache.contains(path[h])) {
                    h++;
                }
                hits[admit++] = h;
            }
            for (int i = 0; i < len; i++) {
                cache.put(path[i], ends[e][i]);
            }
            while (cache.size() > capacityBlocks) {
                cache.removeMax();
            }
        }
        return hits;
    }

    /** For each event and position of its path: the event at which the interval opened there ends usefully, or NEVER. */
    private static int[][] intervalEnds(BlockSequence s, int[] path) {
        int[] nextRef = new int[s.blocks()];
        boolean[] nextCountable = new boolean[s.blocks()];
        Arrays.fill(nextRef, NEVER);
        int[][] ends = new int[s.events()][];
        for (int e = s.events() - 1; e >= 0; e--) {
            int len = s.path(e, path);
            int countable = s.isAdmit(e) ? s.countable(e) : 0;
            ends[e] = new int[len];
            for (int i = 0; i < len; i++) {
                int b = path[i];
                ends[e][i] = nextCountable[b] ? nextRef[b] : NEVER;
                nextRef[b] = e;
                nextCountable[b] = i < countable;
            }
        }
        return ends;
    }

    /** Cached blocks ordered by (interval end, depth), largest on top; positions indexed by block id. */
    private static final class Heap {
        private final BlockSequence s;
        private final int[] heap;
        private final int[] pos;
        private final int[] end;
        private int size;

        Heap(BlockSequence s) {
            this.s = s;
            heap = new int[s.blocks()];
            pos = new int[s.blocks()];
            end = new int[s.blocks()];
            Arrays.fill(pos, -1);
        }

        int size() {
            return size;
        }

        boolean contains(int b) {
            return pos[b] >= 0;
        }

        void put(int b, int intervalEnd) {
            end[b] = intervalEnd;
            if (pos[b] < 0) {
                heap[size] = b;
                pos[b] = size++;
            }
            up(down(pos[b]));
        }

        void removeMax() {
            int top = heap[0];
            pos[top] = -1;
            if (--size > 0) {
                heap[0] = heap[size];
                pos[heap[0]] = 0;
                down(0);
            }
        }

        private boolean above(int a, int b) {
            return end[a] != end[b] ? end[a] > end[b] : s.depth(a) > s.depth(b);
        }

        private int up(int i) {
            while (i > 0) {
                int p = (i - 1) / 2;
                if (!above(heap[i], heap[p])) {
                    break;
                }
                swap(i, p);
                i = p;
            }
            return i;
        }

        private int down(int i) {
            while (true) {
                int l = 2 * i + 1;
                int r = l + 1;
                int m = i;
                if (l < size && above(heap[l], heap[m])) {
                    m = l;
                }
                if (r < size && above(heap[r], heap[m])) {
                    m = r;
                }
                if (m == i) {
                    return i;
                }
                swap(i, m);
                i = m;
            }
        }

        private void swap(int i, int j) {
            int a = heap[i];
            heap[i] = heap[j];
            heap[j] = a;
            pos[heap[i]] = i;
            pos[heap[j]] = j;
        }
    }
}
