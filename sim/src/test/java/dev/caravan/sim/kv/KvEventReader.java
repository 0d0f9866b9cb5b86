package dev.caravan.sim.kv;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Test-side decoder written from vLLM's event layouts (docs/design/upstream.md, "vLLM: KV events on the wire"),
 * independent of the encoder: accepts array or map events, reads hashes as unsigned 64-bit (uint64 via BigInteger).
 */
final class KvEventReader {

    /** {@code group} and {@code kind}: a hybrid model's {@code group_idx} and {@code kv_cache_spec_kind}, or null. */
    record Event(String type, long[] hashes, Long parent, int tokenCount, Integer group, String kind) {
    }

    record Batch(double ts, List<Event> events, long dpRank) {
    }

    /** Ids read as full digests (msgpack bin) so far, by any reader. */
    static final java.util.concurrent.atomic.AtomicInteger DIGEST_IDS = new java.util.concurrent.atomic.AtomicInteger();

    private KvEventReader() {
    }

    static Batch read(byte[] payload) throws IOException {
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
            int n = u.unpackArrayHeader();
            double ts = u.unpackDouble();
            int events = u.unpackArrayHeader();
            List<Event> out = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                out.add(u.getNextFormat().getValueType() == ValueType.MAP ? mapEvent(u) : arrayEvent(u));
            }
            long dp = n > 2 ? u.unpackLong() : -1;
            return new Batch(ts, out, dp);
        }
    }

    private static Event mapEvent(MessageUnpacker u) throws IOException {
        int fields = u.unpackMapHeader();
        String type = null;
        long[] hashes = null;
        Long parent = null;
        int tokens = 0;
        Integer group = null;
        String kind = null;
        for (int f = 0; f < fields; f++) {
            switch (u.unpackString()) {
                case "type" -> type = u.unpackString();
                case "block_hashes" -> hashes = hashes(u);
                case "parent_block_hash" -> parent = hashOrNil(u);
                case "token_ids" -> {
                    tokens = u.unpackArrayHeader();
                    u.skipValue(tokens);
                }
                case "group_idx" -> group = u.unpackInt();
                case "kv_cache_spec_kind" -> kind = u.unpackString();
                default -> u.skipValue();
            }
        }
        return new Event(type, hashes, parent, tokens, group, kind);
    }

    private static Event arrayEvent(MessageUnpacker u) throws IOException {
        int n = u.unpackArrayHeader();
        String type = u.unpackString();
        if (type.equals("BlockStored")) {
            long[] hashes = hashes(u);
            Long parent = hashOrNil(u);
            int tokens = u.unpackArrayHeader();
            u.skipValue(tokens);
            u.skipValue(Math.min(n, 9) - 4);
            Integer group = n > 9 ? u.unpackInt() : null;
            String kind = n > 10 ? u.unpackString() : null;
            u.skipValue(Math.max(0, n - 11));
            return new Event(type, hashes, parent, tokens, group, kind);
        }
        long[] hashes = n > 1 ? hashes(u) : null;
        u.skipValue(Math.min(Math.max(0, n - 2), 1));
        Integer group = n > 3 ? u.unpackInt() : null;
        return new Event(type, hashes, null, 0, group, null);
    }

    private static long[] hashes(MessageUnpacker u) throws IOException {
        long[] h = new long[u.unpackArrayHeader()];
        for (int i = 0; i < h.length; i++) {
            h[i] = hashOrNil(u);
        }
        return h;
    }

    private static Long hashOrNil(MessageUnpacker u) throws IOException {
        MessageFormat f = u.getNextFormat();
        if (f == MessageFormat.NIL) {
            u.unpackNil();
            return null;
        }
        if (f.getValueType() == ValueType.BINARY) {                 // a full digest: its low 64 bits
            byte[] d = u.readPayload(u.unpackBinaryHeader());
            DIGEST_IDS.incrementAndGet();
            long v = 0;
            for (int i = Math.max(0, d.length - 8); i < d.length; i++) {
                v = (v << 8) | (d[i] & 0xff);
            }
            return v;
        }
        return f == MessageFormat.UINT64 ? u.unpackBigInteger().longValue() : u.unpackLong();
    }
}
