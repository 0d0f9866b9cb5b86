package dev.caravan.sim.engine;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEvent.Medium;

/**
 * The CPU offload tier of one engine's {@link PrefixCache}: an LRU set of {@code capacityBlocks} blocks that the GPU
 * pool evicted. Offloading a block not yet here publishes {@code BlockStored} CPU (with its tokens and parent, which
 * SGLang's events carry and vLLM's connector omits) after dropping the least recently used block when full
 * ({@code BlockRemoved} CPU); offloading or hitting a block already here only refreshes it. Not thread-safe: owned by
 * the engine's scheduler thread.
 */
final class OffloadTier {

    /** One offloaded block: its id, the block before it (null for block 0), its tokens, its digests (or null). */
    private record Entry(long hash, Long parent, int[] tokens, byte[] digest, byte[] parentDigest) {
    }

    private final int capacityBlocks;
    private final int blockSize;
    private final List<KvEvent> events;
    /** Least recently used first. */
    private final LinkedHashMap<Long, Entry> blocks = new LinkedHashMap<>();

    OffloadTier(int capacityBlocks, int blockSize, List<KvEvent> events) {
        this.capacityBlocks = capacityBlocks;
        this.blockSize = blockSize;
        this.events = events;
    }

    boolean enabled() {
        return capacityBlocks > 0;
    }

    boolean contains(long hash) {
        return blocks.containsKey(hash);
    }

    /** Marks a block most recently used (a hit); no event. */
    void touch(long hash) {
        Entry e = blocks.remove(hash);
        if (e != null) {
            blocks.put(hash, e);
        }
    }

    /** Takes a block the GPU pool just evicted; {@code digest} and {@code parentDigest} may be null. */
    void offload(long hash, Long parent, int[] tokens, byte[] digest, byte[] parentDigest) {
        if (blocks.containsKey(hash)) {
            touch(hash);
            return;
        }
        while (blocks.size() >= capacityBlocks) {
            Iterator<Entry> it = blocks.values().iterator();
            Entry old = it.next();
            it.remove();
            events.add(new KvEvent.BlockRemoved(new long[] {old.hash()}, Medium.CPU,
                    old.digest() == null ? null : new byte[][] {old.digest()}));
        }
        blocks.put(hash, new Entry(hash, parent, tokens, digest, parentDigest));
        events.add(new KvEvent.BlockStored(new long[] {hash}, parent, tokens, blockSize, Medium.CPU, null,
                digest == null ? null : new byte[][] {digest}, parentDigest));
    }

    /** Drops every block without events (the caller publishes AllBlocksCleared). */
    void clear() {
        blocks.clear();
    }

    int size() {
        return blocks.size();
    }
}
