package dev.caravan.processors.kv;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Builds msgpack KV-event batches the way vLLM encodes them (legacy arrays or tagged maps), for tests. */
final class KvTestPayloads {

    private KvTestPayloads() {
    }

    /** A legacy batch {@code [ts, [BlockStored(hashes)], rank]} with tokens 0.. (blockSize 1), medium GPU. */
    static byte[] stored(int rank, long... hashes) {
        return batch(rank, p -> {
            p.packArrayHeader(8).packString("BlockStored").packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packLong(h);
            }
            p.packNil().packArrayHeader(hashes.length);
            for (int i = 0; i < hashes.length; i++) {
                p.packInt(i);
            }
            p.packInt(1).packNil().packString("GPU").packNil();
        });
    }

    /** A map-layout batch with one BlockRemoved. */
    static byte[] removed(int rank, long... hashes) {
        return batch(rank, p -> {
            p.packMapHeader(3).packString("type").packString("BlockRemoved").packString("block_hashes")
                    .packArrayHeader(hashes.length);
            for (long h : hashes) {
                p.packLong(h);
            }
            p.packString("medium").packString("GPU");
        });
    }

    /** A legacy batch with one BlockStored on the CPU tier. */
    static byte[] storedOnCpu(long hash) {
        return batch(0, p -> p.packArrayHeader(7).packString("BlockStored").packArrayHeader(1).packLong(hash).packNil()
                .packArrayHeader(1).packInt(1).packInt(1).packNil().packString("CPU"));
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
