package dev.caravan.bench.ceiling;

import java.util.Arrays;

/**
 * The pooled-LRU reference: one LRU prefix cache with the whole fleet's KV capacity, fed the workload's
 * {@link BlockSequence}. A prompt is served its longest cached prefix (up to its countable blocks); then every block
 * of its path becomes most recently used, the last block first and the first block last (an engine frees a request's
 * blocks tail first, so a prefix's tail is evicted before its head), and least recently used blocks are evicted until
 * the cache fits. A remember touches its path the same way. Because a block is always touched after its descendants,
 * the least recently used block never has a cached child: the cache stays a set of whole prefixes.
 *
 * <p>This is what the fleet would serve if its engines were one engine with their memory pooled, so it measures what
 * the fleet's LRU eviction, not the router's placement, gives away against {@link Belady}.
 */
public final class PooledLru {

    private PooledLru() {
    }

    /** Blocks served to each admit, in admit order. */
    public static int[] hits(BlockSequence s, int capacityBlocks) {
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("capacityBlocks must be >= 1, was " + capacityBlocks);
        }
        int n = s.blocks();
        int head = n;                       // sentinel of a circular list: head.next = least recently used
        int[] prev = new int[n + 1];
        int[] next = new int[n + 1];
        Arrays.fill(prev, -1);
        prev[head] = head;
        next[head] = head;
        int size = 0;
        int[] hits = new int[s.admits()];
        int admit = 0;
        int[] path = s.pathBuffer();
        for (int e = 0; e < s.events(); e++) {
            int len = s.path(e, path);
            if (s.isAdmit(e)) {
                int limit = Math.min(len, s.countable(e));
                int h = 0;
                while (h < limit && prev[path[h]] >= 0) {
                    h++;
                }
                hits[admit++] = h;
            }
            for (int i = len - 1; i >= 0; i--) {
                int b = path[i];
                if (prev[b] >= 0) {
                    next[prev[b]] = next[b];
                    prev[next[b]] = prev[b];
                } else {
                    size++;
                }
                int last = prev[head];
                next[last] = b;
                prev[b] = last;
                next[b] = head;
                prev[head] = b;
            }
            while (size > capacityBlocks) {
                int victim = next[head];
                next[head] = next[victim];
                prev[next[victim]] = head;
                prev[victim] = -1;
                size--;
            }
        }
        return hits;
    }
}
