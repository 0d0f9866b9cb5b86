package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * The lookup's probing, the chained active-block count and the key cache against the plain algorithms they replace
 * (block-by-block walk, multiset of keys, hashing every block), over seeded random fills, evictions in any order,
 * bound drops, tier moves, clears and peer restores.
 */
class KvLookupDifferentialTest {

    private static final int BS = 4;
    private static final String[] MEDIA = {"GPU", "GPU", "GPU", "CPU", "DISK"};

    /** A request's tokens: a random walk down a small tree of shared prefixes, so chains share leading blocks. */
    private static int[] prompt(SplittableRandom random, List<int[]> docs) {
        int[] base = docs.get(random.nextInt(docs.size()));
        int keep = random.nextInt(base.length / BS + 1) * BS;
        int[] t = new int[keep + random.nextInt(3) * BS + random.nextInt(BS)];
        System.arraycopy(base, 0, t, 0, keep);
        for (int i = keep; i < t.length; i++) {
            t[i] = random.nextInt(50);
        }
        return t;
    }

    private static List<int[]> docs(SplittableRandom random) {
        List<int[]> docs = new ArrayList<>();
        for (int d = 0; d < 12; d++) {
            int[] t = new int[(1 + random.nextInt(30)) * BS];
            int from = 0;
            if (!docs.isEmpty() && random.nextBoolean()) {
                int[] parent = docs.get(random.nextInt(docs.size()));
                from = Math.min(t.length, random.nextInt(parent.length / BS + 1) * BS);
                System.arraycopy(parent, 0, t, 0, from);
            }
            for (int i = from; i < t.length; i++) {
                t[i] = random.nextInt(50);
            }
            docs.add(t);
        }
        return docs;
    }

    @Test
    void probingFindsTheSameRunsAsTheBlockByBlockWalk() {
        for (int seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<int[]> docs = docs(random);
            String[] workers = {"a", "b", "c"};
            int[] rankCount = {1, 2, 3};
            KvBlockIndex index = new KvBlockIndex(seed % 3 == 0 ? 40 : 1 << 12);
            Map<String, FakeEngine> engines = new HashMap<>();
            for (int w = 0; w < workers.length; w++) {
                for (int r = 0; r < rankCount[w]; r++) {
                    engines.put(workers[w] + r, new FakeEngine(seed * 100L + w * 10 + r, BS));
                }
            }
            for (int step = 0; step < 300; step++) {
                int w = random.nextInt(workers.length);
                int r = random.nextInt(rankCount[w]);
                FakeEngine e = engines.get(workers[w] + r);
                int[] doc = docs.get(random.nextInt(docs.size()));
                int blocks = doc.length / BS;
                int op = random.nextInt(100);
                if (op < 55) {
                    int from = random.nextInt(4) == 0 ? random.nextInt(blocks) : 0;
                    int to = from + 1 + random.nextInt(blocks - from);
                    index.apply(workers[w], r, e.stored(doc, from, to, MEDIA[random.nextInt(MEDIA.length)],
                            random.nextInt(10) == 0 ? 1 : null, null));
                } else if (op < 90) {
                    // evict: from the tail mostly (as engines do), anywhere sometimes (a hole)
                    int b = random.nextInt(3) == 0 ? random.nextInt(blocks) : blocks - 1 - random.nextInt(2) % blocks;
                    index.apply(workers[w], r, new KvEvent.BlockRemoved(new long[] {e.id(doc, b)},
                            MEDIA[random.nextInt(MEDIA.length)], null));
                } else if (op < 93) {
                    index.apply(workers[w], r, new KvEvent.AllBlocksCleared());
                } else if (op < 96) {
                    KvBlockIndex peer = new KvBlockIndex();
                    peer.restore(workers[w], index.export(workers[w]));
                    index.clearWorker(workers[w]);
                    index.restore(workers[w], peer.export(workers[w]));
                } else {
                    index.clearRank(workers[w], r);
                }
                for (int q = 0; q < 4; q++) {
                    long[] keys = BlockKeys.keys(prompt(random, docs), BS, BlockKeys.PLAIN_ROOT);
                    PrefixMatches actual = index.longestPrefixes(keys, 0.8, 0.3);
                    for (int ww = 0; ww < workers.length; ww++) {
                        PrefixMatches.Match expected = walk(index, workers[ww], rankCount[ww], keys, 0.8, 0.3);
                        PrefixMatches.Match got = actual.match(workers[ww]);
                        String where = "seed " + seed + " step " + step + " worker " + workers[ww];
                        if (expected == null) {
                            assertThat(got).as(where).isNull();
                        } else {
                            where += ": expected " + expected + ", got " + got;
                            assertThat(got).as(where).isNotNull();
                            assertThat(got.rank()).as(where).isEqualTo(expected.rank());
                            assertThat(got.blocks()).as(where).isEqualTo(expected.blocks());
                            assertThat(got.gpuBlocks()).as(where).isEqualTo(expected.gpuBlocks());
                            assertThat(got.score()).as(where).isCloseTo(expected.score(), within(1e-9));
                        }
                    }
                }
            }
        }
    }

    /** The walk every lookup used to make: per rank, block by block until it holds the key on no tier. */
    private static PrefixMatches.Match walk(KvBlockIndex index, String worker, int ranks, long[] keys, double cpuWeight,
                                            double diskWeight) {
        PrefixMatches.Match best = null;
        for (int r = 0; r < ranks; r++) {
            int slot = index.slot(worker, r);
            if (slot < 0) {
                continue;
            }
            int depth = 0;
            int gpuDepth = 0;
            boolean gpuAlive = true;
            double score = 0;
            for (long key : keys) {
                long[] bits = index.holderBits(key);
                boolean gpu = bits != null && Holders.has(bits, KvTier.GPU.ordinal(), slot);
                boolean cpu = bits != null && Holders.has(bits, KvTier.CPU.ordinal(), slot);
                boolean disk = bits != null && Holders.has(bits, KvTier.DISK.ordinal(), slot);
                if (!gpu && !cpu && !disk) {
                    break;
                }
                depth++;
                score += gpu ? 1.0 : cpu ? cpuWeight : diskWeight;
                gpuAlive &= gpu;
                if (gpuAlive) {
                    gpuDepth++;
                }
            }
            if (depth > 0 && (best == null || score > best.score())) {
                best = new PrefixMatches.Match(r, depth, gpuDepth, score);
            }
        }
        return best;
    }

    @Test
    void chainedActiveBlocksCountLikeAMultisetOfKeys() {
        for (int seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<int[]> docs = docs(random);
            ActiveBlocks active = new ActiveBlocks();
            Map<Long, Integer> multiset = new HashMap<>();
            List<Runnable> leases = new ArrayList<>();
            List<long[]> leased = new ArrayList<>();
            long tails = 0;
            for (int step = 0; step < 400; step++) {
                if (leases.isEmpty() || random.nextInt(3) > 0) {
                    long[] chain = BlockKeys.keys(prompt(random, docs), BS, BlockKeys.PLAIN_ROOT);
                    long[] withTail = java.util.Arrays.copyOf(chain, chain.length + 1);
                    withTail[chain.length] = 0x7A11_0000_0000_0000L + tails++;
                    leases.add(active.add("w", 0, chain, 1));
                    leased.add(withTail);
                    for (long k : withTail) {
                        multiset.merge(k, 1, Integer::sum);
                    }
                } else {
                    int i = random.nextInt(leases.size());
                    leases.remove(i).run();
                    for (long k : leased.remove(i)) {
                        multiset.computeIfPresent(k, (key, n) -> n == 1 ? null : n - 1);
                    }
                }
                assertThat(active.active("w", 0)).as("seed " + seed + " step " + step).isEqualTo(multiset.size());
                long[] query = BlockKeys.keys(prompt(random, docs), BS, BlockKeys.PLAIN_ROOT);
                int added = 0;
                for (long k : query) {
                    added += multiset.containsKey(k) ? 0 : 1;
                }
                assertThat(active.potential("w", 0, query)).isEqualTo(multiset.size() + added);
            }
        }
    }

    @Test
    void cachedKeysEqualTheKeysOfEveryBlockHashed() {
        BlockKeyCache cache = new BlockKeyCache();
        SplittableRandom random = new SplittableRandom(7);
        int[] base = new int[5000];
        for (int i = 0; i < base.length; i++) {
            base[i] = random.nextInt(128_000);
        }
        for (int round = 0; round < 200; round++) {
            int[] t = java.util.Arrays.copyOf(base, random.nextInt(base.length));
            if (t.length > 0 && random.nextBoolean()) {
                t[random.nextInt(t.length)] = random.nextInt(128_000); // a change somewhere in the prefix
            }
            int bs = new int[] {1, 16, 32, 5}[random.nextInt(4)];
            long root = random.nextInt(3) == 0 ? BlockKeys.root("lora", null) : BlockKeys.PLAIN_ROOT;
            assertThat(cache.keys(t, bs, root).toArray()).as("round " + round).isEqualTo(BlockKeys.keys(t, bs, root));
        }
    }

    @Test
    void theTrieOfChainSegmentsFindsTheSameBranchPointsAsTheKeyByKeyCounts() {
        for (int seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<int[]> docs = docs(random);
            SharedPrefixes trie = new SharedPrefixes(seed % 2 == 0 ? 200 : SharedPrefixes.MAX_ENTRIES);
            KeyByKeySharedPrefixes oracle = new KeyByKeySharedPrefixes(seed % 2 == 0 ? 200
                    : SharedPrefixes.MAX_ENTRIES);
            for (int step = 0; step < 500; step++) {
                long[] chain = BlockKeys.keys(prompt(random, docs), BS, BlockKeys.PLAIN_ROOT);
                int parts = 1 + random.nextInt(8);
                String where = "seed " + seed + " step " + step;
                assertThat(trie.sharedBlocks(chain, parts)).as(where).isEqualTo(oracle.sharedBlocks(chain, parts));
                trie.record(chain);
                oracle.record(chain);
                assertThat(trie.size()).as(where).isEqualTo(oracle.size());
                assertThat(trie.total()).as(where).isEqualTo(oracle.total());
            }
        }
    }
}
