package dev.caravan.sim.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Encodes a KV-event batch exactly as vLLM's msgspec encoder does (byte for byte; see
 * {@code shared/reference/kv-events.md} §2): the batch is the positional array {@code [ts, events, data_parallel_rank]}
 * with {@code ts} as float64; events follow the chosen {@link KvEventLayout}; block hashes are unsigned 64-bit integers
 * in their smallest msgpack form ({@code 0xcf} uint64 when the top bit is set); {@code medium} is {@code "GPU"};
 * {@code lora_id} and {@code lora_name} are nil. Stateless and thread-safe.
 */
public final class KvEventEncoder {

    private static final String MEDIUM = "GPU";

    private final KvEventLayout layout;

    public KvEventEncoder(KvEventLayout layout) {
        this.layout = layout;
    }

    public KvEventLayout layout() {
        return layout;
    }

    /** One batch payload (frame 2 of a live message). */
    public byte[] encode(double ts, List<KvEvent> events, int dataParallelRank) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3);
            p.packDouble(ts);
            p.packArrayHeader(events.size());
            for (KvEvent e : events) {
                if (layout == KvEventLayout.MAP) {
                    packMap(p, e);
                } else {
                    packArray(p, e);
                }
            }
            p.packInt(dataParallelRank);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("msgpack encoding into memory failed", e);
        }
    }

    private static void packMap(MessageBufferPacker p, KvEvent e) throws IOException {
        if (e instanceof KvEvent.BlockStored s) {
            p.packMapHeader(8);
            p.packString("type").packString("BlockStored");
            p.packString("block_hashes");
            packHashes(p, s.blockHashes());
            p.packString("parent_block_hash");
            packHashOrNil(p, s.parentHash());
            p.packString("token_ids");
            packTokens(p, s.tokenIds());
            p.packString("block_size").packInt(s.blockSize());
            p.packString("lora_id").packNil();
            p.packString("medium").packString(MEDIUM);
            p.packString("lora_name").packNil();
        } else if (e instanceof KvEvent.BlockRemoved r) {
            p.packMapHeader(3);
            p.packString("type").packString("BlockRemoved");
            p.packString("block_hashes");
            packHashes(p, r.blockHashes());
            p.packString("medium").packString(MEDIUM);
        } else {
            p.packMapHeader(1);
            p.packString("type").packString("AllBlocksCleared");
        }
    }

    private static void packArray(MessageBufferPacker p, KvEvent e) throws IOException {
        if (e instanceof KvEvent.BlockStored s) {
            p.packArrayHeader(8);
            p.packString("BlockStored");
            packHashes(p, s.blockHashes());
            packHashOrNil(p, s.parentHash());
            packTokens(p, s.tokenIds());
            p.packInt(s.blockSize());
            p.packNil();
            p.packString(MEDIUM);
            p.packNil();
        } else if (e instanceof KvEvent.BlockRemoved r) {
            p.packArrayHeader(3);
            p.packString("BlockRemoved");
            packHashes(p, r.blockHashes());
            p.packString(MEDIUM);
        } else {
            p.packArrayHeader(1);
            p.packString("AllBlocksCleared");
        }
    }

    private static void packHashes(MessageBufferPacker p, long[] hashes) throws IOException {
        p.packArrayHeader(hashes.length);
        for (long h : hashes) {
            packUnsigned(p, h);
        }
    }

    private static void packHashOrNil(MessageBufferPacker p, Long hash) throws IOException {
        if (hash == null) {
            p.packNil();
        } else {
            packUnsigned(p, hash);
        }
    }

    private static void packTokens(MessageBufferPacker p, int[] tokens) throws IOException {
        p.packArrayHeader(tokens.length);
        for (int t : tokens) {
            p.packInt(t);
        }
    }

    /** The 64 bits of {@code v} as an unsigned integer: smallest form, {@code cf} + 8 bytes when the top bit is set. */
    static void packUnsigned(MessageBufferPacker p, long v) throws IOException {
        if (v >= 0) {
            p.packLong(v);
            return;
        }
        byte[] b = new byte[9];
        b[0] = (byte) 0xcf;
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (byte) (v >>> (56 - 8 * i));
        }
        p.writePayload(b);
    }
}
