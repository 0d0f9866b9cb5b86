package dev.caravan.policies.kv;

import java.util.Arrays;

/**
 * The probing half of {@link KvBlockIndex#longestPrefixes}: for engine ranks whose holdings are prefix-closed, where
 * each one's three leading runs of a request's chain end (any tier, host memory or better, GPU), found by reading a
 * few chain positions for all ranks at once.
 *
 * <p>A <em>state</em> is the holder bits at one chain position as three bit sets over slots, {@code [any | cpu-or-gpu
 * | gpu]}, {@code words} longs each. For prefix-closed ranks the states only lose bits along the chain, so a bit that
 * is set at position {@code lo} and clear at {@code hi} ends its run in {@code (lo, hi]}. The search gallops from
 * position 0 (1, 2, 4, 8, ... ahead) until no rank holds the probed key, and bisects every interval whose two end
 * states differ; an interval whose end states are equal holds no run end and is skipped. Each probed state is clipped
 * to the state before it and widened to the state after it, so a concurrent change cannot make runs overlap. Not
 * thread-safe; one instance per lookup.
 */
final class PrefixSearch {

    private static final int LEVELS = 3;

    private final KeyTable table;
    private final KeyChain keys;
    private final int words;
    private final KvBlockIndex.Runs runs;

    PrefixSearch(KeyTable table, KeyChain keys, int words, KvBlockIndex.Runs runs) {
        this.table = table;
        this.keys = keys;
        this.words = words;
        this.runs = runs;
    }

    /** The state of holder bits {@code bits} (null = none) over {@code words} words, intersected with {@code within}. */
    static long[] state(long[] bits, int words, long[] within) {
        long[] out = new long[LEVELS * words];
        if (bits == null) {
            return out;
        }
        int bw = Holders.words(bits);
        for (int w = 0; w < Math.min(words, bw); w++) {
            long gpu = bits[w];
            long cpu = gpu | bits[bw + w];
            long any = cpu | bits[2 * bw + w];
            out[w] = within == null ? any : any & within[w];
            out[words + w] = within == null ? cpu : cpu & within[words + w];
            out[2 * words + w] = within == null ? gpu : gpu & within[2 * words + w];
        }
        return out;
    }

    static boolean empty(long[] state) {
        for (long w : state) {
            if (w != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Finds the runs of every rank set in {@code start}, the state at position 0, and their scores: 1 per GPU block,
     * then the weights of the lower tiers' blocks added one by one in chain order, so a score equals the walk's to
     * the last bit (the only part whose cost grows with the blocks, and only with those off the GPU).
     */
    void run(long[] start, double cpuWeight, double diskWeight) {
        search(start);
        // the ends found are of nested runs (gpu ≤ cpu-or-gpu ≤ any): split them into blocks per best tier
        for (int w = 0; w < words; w++) {
            for (long b = start[w]; b != 0; b &= b - 1) {
                int s = w * 64 + Long.numberOfTrailingZeros(b);
                int gpuEnd = runs.gpu[s];
                int cpuEnd = runs.cpu[s];
                int anyEnd = runs.disk[s];
                runs.gpuRun[s] = gpuEnd;
                runs.cpu[s] = cpuEnd - gpuEnd;
                runs.disk[s] = anyEnd - cpuEnd;
                double score = gpuEnd;
                for (int i = 0; i < runs.cpu[s]; i++) {
                    score += cpuWeight;
                }
                for (int i = 0; i < runs.disk[s]; i++) {
                    score += diskWeight;
                }
                runs.score[s] = score;
            }
        }
    }

    private void search(long[] start) {
        int n = keys.length();
        long[] lo = start;
        int loPos = 0;
        long step = 1;
        while (true) {
            if (loPos == n - 1) {
                end(lo, new long[lo.length], n);
                return;
            }
            int hiPos = (int) Math.min(n - 1L, loPos + step);
            long[] hi = state(table.get(keys.get(hiPos)), words, lo);
            bisect(loPos, lo, hiPos, hi);
            if (empty(hi)) {
                return;
            }
            loPos = hiPos;
            lo = hi;
            step <<= 1;
        }
    }

    private void bisect(int loPos, long[] lo, int hiPos, long[] hi) {
        if (Arrays.equals(lo, hi)) {
            return;
        }
        if (hiPos == loPos + 1) {
            end(lo, hi, hiPos);
            return;
        }
        int midPos = (loPos + hiPos) >>> 1;
        long[] mid = state(table.get(keys.get(midPos)), words, lo);
        for (int i = 0; i < mid.length; i++) {
            mid[i] |= hi[i];
        }
        bisect(loPos, lo, midPos, mid);
        bisect(midPos, mid, hiPos, hi);
    }

    /** Runs set in {@code lo} and not in {@code hi} end at {@code pos} (blocks 0..pos-1 held): recorded as ends. */
    private void end(long[] lo, long[] hi, int pos) {
        for (int w = 0; w < words; w++) {
            for (long b = lo[w] & ~hi[w]; b != 0; b &= b - 1) {
                runs.disk[w * 64 + Long.numberOfTrailingZeros(b)] = pos;
            }
            for (long b = lo[words + w] & ~hi[words + w]; b != 0; b &= b - 1) {
                runs.cpu[w * 64 + Long.numberOfTrailingZeros(b)] = pos;
            }
            for (long b = lo[2 * words + w] & ~hi[2 * words + w]; b != 0; b &= b - 1) {
                runs.gpu[w * 64 + Long.numberOfTrailingZeros(b)] = pos;
            }
        }
    }
}
