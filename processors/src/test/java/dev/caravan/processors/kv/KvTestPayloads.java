package dev.caravan.processors.kv;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import dev.caravan.policies.kv.BlockKeys;

/**
 * Builds msgpack KV-event batches the way vLLM encodes them (legacy arrays or tagged maps), for tests. Blocks are one
 * token each and a block's token is its engine id ({@code (int) hash}), so {@link #key} names the index key of a chain.
 */
public final class KvTestPayloads {

    private KvTestPayloads() {
    }

    /**
     * A legacy batch {@code [ts, [BlockStored(hashes)], rank]} starting a sequence (no parent), one token per block
     * equal to its id, blockSize 1, medium GPU.
     */
    public static byte[] stored(int rank, long... hashes) {
        return batch(rank, p -> {
            p.packArrayHeader(8).packString("BlockStored").packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packLong(h);
            }
            p.packNil().packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packInt((int) h);
            }
            p.packInt(1).packNil().packString("GPU").packNil();
        });
    }

    /** The index key of the last block of a sequence stored with {@link #stored} as {@code ids}. */
    public static long key(long... ids) {
        int[] tokens = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            tokens[i] = (int) ids[i];
        }
        long[] keys = BlockKeys.keys(tokens, 1, BlockKeys.PLAIN_ROOT);
        return keys[keys.length - 1];
    }

    /** The index keys of a sequence stored with {@link #stored} as {@code ids}. */
    public static long[] keys(long... ids) {
        long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = key(java.util.Arrays.copyOf(ids, i + 1));
        }
        return out;
    }

    /** {@link #stored} in a batch {@code [ts, events]} that names no DP rank (older SGLang). */
    static byte[] storedWithoutRank(long... hashes) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(2).packDouble(1_700_000_000.5).packArrayHeader(1);
            p.packArrayHeader(6).packString("BlockStored").packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packLong(h);
            }
            p.packNil().packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packInt((int) h);
            }
            p.packInt(1).packNil();
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A map-layout batch with one BlockRemoved. */
    public static byte[] removed(int rank, long... hashes) {
        return batch(rank, p -> {
            p.packMapHeader(3).packString("type").packString("BlockRemoved").packString("block_hashes")
                    .packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packLong(h);
            }
            p.packString("medium").packString("GPU");
        });
    }

    /** A legacy batch with one BlockStored on the CPU tier as vLLM's offloading connector sends it: no tokens. */
    static byte[] storedOnCpu(long hash) {
        return batch(0, p -> p.packArrayHeader(7).packString("BlockStored").packArrayHeader(1).packLong(hash).packNil()
                .packArrayHeader(0).packInt(0).packNil().packString("CPU"));
    }

    /** A map-layout batch with AllBlocksCleared. */
    static byte[] cleared(int rank) {
        return batch(rank, p -> p.packMapHeader(1).packString("type").packString("AllBlocksCleared"));
    }

    interface EventWriter {
        void write(MessageBufferPacker p) throws IOException;
    }

    private static byte[] batch(int rank, EventWriter event) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3).packDouble(1_700_000_000.5).packArrayHeader(1);
            event.write(p);
            p.packInt(rank);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static KvEventMessage message(String topic, long seq, byte[] payload) throws KvDecodeException {
        return new KvEventMessage(topic, seq, KvEventDecoder.decodeBatch(payload));
    }
}
