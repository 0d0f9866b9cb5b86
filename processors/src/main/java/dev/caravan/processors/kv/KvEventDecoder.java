package dev.caravan.processors.kv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

import dev.caravan.policies.kv.KvEvent;

import dev.caravan.processors.kv.KvDecodeException.Reason;

/**
 * Decodes vLLM KV-event messages (docs/design/kv-events.md, "Decoder"). Strict about framing, tolerant about content:
 * <ul>
 *   <li>a live message is exactly 3 frames: topic, 8-byte big-endian unsigned sequence, msgpack payload;</li>
 *   <li>the batch is an array {@code [ts, events, dp_rank?]} or a map with keys {@code ts}, {@code events},
 *       {@code data_parallel_rank};</li>
 *   <li>each event is a legacy positional array {@code ["BlockStored", hashes, parent, tokens, block_size, lora_id,
 *       medium, lora_name, extra_keys, group_idx, kv_cache_spec_kind, ...]} (vLLM's declaration order; SGLang sends
 *       a prefix of it) or a map tagged by {@code "type"} (vLLM since PR #42892; SGLang adds {@code cache_salt});
 *       unknown keys and extra trailing elements are ignored, missing trailing elements take their defaults;</li>
 *   <li>the LoRA name and {@code cache_salt} inside vLLM's per-block {@code extra_keys} are lifted out (the index
 *       folds them into the sequence's root); other extra keys stay with their block;</li>
 *   <li>events about blocks another engine holds ({@code locality} other than {@code LOCAL}) are skipped;</li>
 *   <li>block hashes are msgpack ints (uint64 above 2^63 kept bit-for-bit) or bytes (last 8 bytes big-endian, as the
 *       engine's int mode computes them);</li>
 *   <li>an event with an unknown tag or a field of the wrong type is skipped and counted in
 *       {@link KvEventBatch#skippedEvents()}; the rest of the batch is kept;</li>
 *   <li>anything that leaves the batch itself unreadable (truncation, wrong outer types, trailing bytes) is a
 *       {@link KvDecodeException}.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class KvEventDecoder {

    /** The replay end marker: sequence 0xFF..FF (-1 as a signed long). */
    public static final long END_SEQUENCE = -1L;

    private KvEventDecoder() {
    }

    /** Decodes a live 3-frame message. */
    public static KvEventMessage decode(List<byte[]> frames) throws KvDecodeException {
        if (frames == null || frames.size() != 3) {
            throw new KvDecodeException(Reason.FRAME_COUNT, "expected 3 frames (topic, sequence, payload), got "
                    + (frames == null ? 0 : frames.size()));
        }
        return new KvEventMessage(new String(frames.get(0), StandardCharsets.UTF_8), sequence(frames.get(1)),
                decodeBatch(frames.get(2)));
    }

    /** Reads an 8-byte big-endian unsigned sequence frame. */
    public static long sequence(byte[] frame) throws KvDecodeException {
        if (frame == null || frame.length != 8) {
            throw new KvDecodeException(Reason.SEQUENCE, "sequence frame must be 8 bytes, was "
                    + (frame == null ? 0 : frame.length));
        }
        long v = 0;
        for (byte b : frame) {
            v = (v << 8) | (b & 0xff);
        }
        return v;
    }

    /** Encodes a sequence as the 8-byte big-endian frame publishers and replay requests use. */
    public static byte[] sequenceFrame(long sequence) {
        byte[] out = new byte[8];
        for (int i = 7; i >= 0; i--) {
            out[i] = (byte) sequence;
            sequence >>>= 8;
        }
        return out;
    }

    /** Decodes one msgpack {@code KVEventBatch} payload. */
    public static KvEventBatch decodeBatch(byte[] payload) throws KvDecodeException {
        if (payload == null || payload.length == 0) {
            throw new KvDecodeException(Reason.PAYLOAD, "empty payload");
        }
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
            KvEventBatch batch = switch (u.getNextFormat().getValueType()) {
                case ARRAY -> arrayBatch(u, payload.length);
                case MAP -> mapBatch(u, payload.length);
                default -> throw malformed("batch must be an array or a map, was " + u.getNextFormat());
            };
            if (u.hasNext()) {
                throw malformed("trailing bytes after the batch (" + (payload.length - u.getTotalReadBytes()) + ")");
            }
            return batch;
        } catch (IOException | MessagePackException e) {
            throw new KvDecodeException(Reason.PAYLOAD, "malformed msgpack batch: " + e.getMessage(), e);
        }
    }

    private static KvDecodeException malformed(String message) {
        return new KvDecodeException(Reason.PAYLOAD, message);
    }

    private static KvEventBatch arrayBatch(MessageUnpacker u, int payloadLength)
            throws IOException, KvDecodeException {
        int n = u.unpackArrayHeader();
        if (n < 2) {
            throw malformed("batch array has " + n + " elements, expected [ts, events, dp_rank?]");
        }
        double ts = timestamp(u);
        List<KvEvent> events = new ArrayList<>();
        int skipped = events(u, events, payloadLength);
        Integer rank = n > 2 ? optionalInt(u, "data_parallel_rank") : null;
        u.skipValue(Math.max(0, n - 3));
        return new KvEventBatch(ts, events, rank, skipped);
    }

    private static KvEventBatch mapBatch(MessageUnpacker u, int payloadLength) throws IOException, KvDecodeException {
        int n = u.unpackMapHeader();
        double ts = 0;
        List<KvEvent> events = null;
        int skipped = 0;
        Integer rank = null;
        for (int i = 0; i < n; i++) {
            String key = u.getNextFormat().getValueType() == ValueType.STRING ? u.unpackString() : skipKey(u);
            switch (key) {
                case "ts" -> ts = timestamp(u);
                case "events" -> {
                    events = new ArrayList<>();
                    skipped = events(u, events, payloadLength);
                }
                case "data_parallel_rank" -> rank = optionalInt(u, "data_parallel_rank");
                default -> u.skipValue();
            }
        }
        if (events == null) {
            throw malformed("batch map has no 'events'");
        }
        return new KvEventBatch(ts, events, rank, skipped);
    }

    static String skipKey(MessageUnpacker u) throws IOException {
        u.skipValue();
        return "";
    }

    private static double timestamp(MessageUnpacker u) throws IOException, KvDecodeException {
        return switch (u.getNextFormat().getValueType()) {
            case FLOAT -> u.unpackDouble();
            case INTEGER -> u.unpackLong();
            default -> throw malformed("ts must be a number, was " + u.getNextFormat());
        };
    }

    private static Integer optionalInt(MessageUnpacker u, String name) throws IOException, KvDecodeException {
        if (u.tryUnpackNil()) {
            return null;
        }
        if (u.getNextFormat().getValueType() != ValueType.INTEGER) {
            throw malformed(name + " must be an integer, was " + u.getNextFormat());
        }
        long v = u.unpackLong();
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw malformed(name + " out of range: " + v);
        }
        return (int) v;
    }

    /** Reads the events array into {@code out}; returns how many events were skipped. */
    private static int events(MessageUnpacker u, List<KvEvent> out, int payloadLength)
            throws IOException, KvDecodeException {
        if (u.getNextFormat().getValueType() != ValueType.ARRAY) {
            throw malformed("events must be an array, was " + u.getNextFormat());
        }
        int n = u.unpackArrayHeader();
        int skipped = 0;
        for (int i = 0; i < n; i++) {
            KvEvent e = KvEventFields.read(u, payloadLength);
            if (e == null) {
                skipped++;
            } else {
                out.add(e);
            }
        }
        return skipped;
    }
}
