package dev.caravan.processors.kv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.msgpack.value.ValueType;

import dev.caravan.policies.kv.KvEvent;

import dev.caravan.processors.kv.KvDecodeException.Reason;

/**
 * Decodes vLLM KV-event messages (docs/kv-events.md, "Decoder"). Strict about framing, tolerant about content:
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

    /** vLLM's declaration order, the positional order of the legacy array layout (SGLang's is its prefix). */
    private static final String[] STORED_FIELDS = {
        "block_hashes", "parent_block_hash", "token_ids", "block_size", "lora_id", "medium", "lora_name", "extra_keys",
        "group_idx", "kv_cache_spec_kind", "kv_cache_spec_sliding_window", "locality", "ownership", "session_id"};
    private static final String[] REMOVED_FIELDS = {"block_hashes", "medium", "group_idx", "locality", "ownership"};

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
                case ARRAY -> arrayBatch(u);
                case MAP -> mapBatch(u);
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

    private static KvEventBatch arrayBatch(MessageUnpacker u) throws IOException, KvDecodeException {
        int n = u.unpackArrayHeader();
        if (n < 2) {
            throw malformed("batch array has " + n + " elements, expected [ts, events, dp_rank?]");
        }
        double ts = timestamp(u);
        List<KvEvent> events = new ArrayList<>();
        int skipped = events(u, events);
        Integer rank = n > 2 ? optionalInt(u, "data_parallel_rank") : null;
        u.skipValue(Math.max(0, n - 3));
        return new KvEventBatch(ts, events, rank, skipped);
    }

    private static KvEventBatch mapBatch(MessageUnpacker u) throws IOException, KvDecodeException {
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
                    skipped = events(u, events);
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

    private static String skipKey(MessageUnpacker u) throws IOException {
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
    private static int events(MessageUnpacker u, List<KvEvent> out) throws IOException, KvDecodeException {
        if (u.getNextFormat().getValueType() != ValueType.ARRAY) {
            throw malformed("events must be an array, was " + u.getNextFormat());
        }
        int n = u.unpackArrayHeader();
        int skipped = 0;
        for (int i = 0; i < n; i++) {
            KvEvent e = EventFields.read(u);
            if (e == null) {
                skipped++;
            } else {
                out.add(e);
            }
        }
        return skipped;
    }

    /** The fields of one event, collected from either layout, then turned into a {@link KvEvent}. */
    private static final class EventFields {
        String tag;
        long[] hashes;
        Long parent;
        int[] tokens = new int[0];
        int blockSize;
        String medium;
        String loraName;
        String cacheSalt;
        List<Value> extraKeys;
        Integer groupIdx;
        String specKind;
        String locality;
        boolean bad;

        /** Reads one event (array or map); null when it is skipped (unknown tag, malformed field, remote blocks). */
        static KvEvent read(MessageUnpacker u) throws IOException {
            EventFields f = new EventFields();
            ValueType type = u.getNextFormat().getValueType();
            if (type == ValueType.ARRAY) {
                int n = u.unpackArrayHeader();
                if (n == 0) {
                    return null;
                }
                f.tag = f.string(u);
                String[] names = "BlockStored".equals(f.tag) ? STORED_FIELDS
                        : "BlockRemoved".equals(f.tag) ? REMOVED_FIELDS : new String[0];
                for (int i = 1; i < n; i++) {
                    f.field(u, i - 1 < names.length ? names[i - 1] : "");
                }
            } else if (type == ValueType.MAP) {
                int n = u.unpackMapHeader();
                for (int i = 0; i < n; i++) {
                    String key = u.getNextFormat().getValueType() == ValueType.STRING ? u.unpackString() : skipKey(u);
                    if ("type".equals(key)) {
                        f.tag = f.string(u);
                    } else {
                        f.field(u, key);
                    }
                }
            } else {
                u.skipValue();
                return null;
            }
            return f.build();
        }

        private KvEvent build() {
            if (bad || tag == null || (locality != null && !"LOCAL".equalsIgnoreCase(locality))) {
                return null;
            }
            return switch (tag) {
                case "BlockStored" -> hashes == null ? null : stored();
                case "BlockRemoved" -> hashes == null ? null : new KvEvent.BlockRemoved(hashes, medium, groupIdx);
                case "AllBlocksCleared" -> new KvEvent.AllBlocksCleared();
                default -> null;
            };
        }

        /**
         * vLLM's per-block {@code extra_keys} tuples hold, in order, the LoRA name (every block), multimodal keys, the
         * {@code cache_salt} (block 0 of a sequence only) and prompt-embedding hashes. The LoRA name and the salt go
         * to the fields the index folds into the root; anything else stays with its block as canonical bytes.
         */
        private KvEvent.BlockStored stored() {
            byte[][] extras = null;
            if (extraKeys != null) {
                for (int i = 0; i < extraKeys.size() && i < hashes.length; i++) {
                    Value v = extraKeys.get(i);
                    if (v == null || v.isNilValue() || !v.isArrayValue()) {
                        continue;
                    }
                    StringBuilder rest = new StringBuilder();
                    boolean loraSeen = false;
                    for (Value e : v.asArrayValue()) {
                        if (e.isStringValue()) {
                            String str = e.asStringValue().asString();
                            if (!loraSeen && str.equals(loraName)) {
                                loraSeen = true;
                                continue;
                            }
                            if (i == 0 && parent == null && cacheSalt == null) {
                                cacheSalt = str;
                                continue;
                            }
                        }
                        rest.append(e.toJson()).append('\u0000');
                    }
                    if (rest.length() > 0) {
                        if (extras == null) {
                            extras = new byte[hashes.length][];
                        }
                        extras[i] = rest.toString().getBytes(StandardCharsets.UTF_8);
                    }
                }
            }
            return new KvEvent.BlockStored(hashes, parent, tokens, blockSize, medium, loraName, cacheSalt, extras,
                    groupIdx, specKind);
        }

        private void field(MessageUnpacker u, String name) throws IOException {
            switch (name) {
                case "block_hashes" -> hashes = hashList(u);
                case "parent_block_hash" -> parent = u.tryUnpackNil() ? null : hash(u);
                case "token_ids" -> tokens = tokenList(u);
                case "block_size" -> blockSize = u.tryUnpackNil() ? 0 : (int) boundedInt(u);
                case "medium" -> medium = string(u);
                case "lora_name" -> loraName = string(u);
                case "cache_salt" -> cacheSalt = string(u);
                case "extra_keys" -> extraKeys = valueList(u);
                case "group_idx" -> groupIdx = u.tryUnpackNil() ? null : (int) boundedInt(u);
                case "kv_cache_spec_kind" -> specKind = string(u);
                case "locality" -> locality = string(u);
                default -> u.skipValue();
            }
        }

        /** A list of values (or nil); anything else marks the event bad. */
        private List<Value> valueList(MessageUnpacker u) throws IOException {
            if (u.tryUnpackNil()) {
                return null;
            }
            if (u.getNextFormat().getValueType() != ValueType.ARRAY) {
                markBad(u);
                return null;
            }
            int n = u.unpackArrayHeader();
            List<Value> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(u.unpackValue());
            }
            return out;
        }

        /** A string or nil; anything else marks the event bad and is skipped. */
        private String string(MessageUnpacker u) throws IOException {
            if (u.tryUnpackNil()) {
                return null;
            }
            if (u.getNextFormat().getValueType() != ValueType.STRING) {
                markBad(u);
                return null;
            }
            return u.unpackString();
        }

        private long[] hashList(MessageUnpacker u) throws IOException {
            if (u.getNextFormat().getValueType() != ValueType.ARRAY) {
                markBad(u);
                return null;
            }
            int n = u.unpackArrayHeader();
            long[] out = new long[n];
            for (int i = 0; i < n; i++) {
                out[i] = hash(u);
            }
            return out;
        }

        /** A block hash: int (uint64 kept bit-for-bit) or bytes (last 8, big-endian). */
        private long hash(MessageUnpacker u) throws IOException {
            MessageFormat format = u.getNextFormat();
            if (format == MessageFormat.UINT64) {
                return u.unpackBigInteger().longValue();
            }
            if (format.getValueType() == ValueType.INTEGER) {
                return u.unpackLong();
            }
            if (format.getValueType() == ValueType.BINARY) {
                byte[] digest = u.readPayload(u.unpackBinaryHeader());
                long v = 0;
                for (int i = Math.max(0, digest.length - 8); i < digest.length; i++) {
                    v = (v << 8) | (digest[i] & 0xff);
                }
                return v;
            }
            markBad(u);
            return 0;
        }

        /** Token ids; anything but non-negative ints (SGLang's EAGLE bigram pairs, ...) marks the event bad. */
        private int[] tokenList(MessageUnpacker u) throws IOException {
            if (u.getNextFormat().getValueType() != ValueType.ARRAY) {
                markBad(u);
                return new int[0];
            }
            int n = u.unpackArrayHeader();
            int[] out = new int[n];
            for (int i = 0; i < n; i++) {
                out[i] = (int) boundedInt(u);
            }
            return out;
        }

        /** A non-negative int; anything else (wrong type, negative, beyond int) marks the event bad. */
        private long boundedInt(MessageUnpacker u) throws IOException {
            MessageFormat format = u.getNextFormat();
            if (format.getValueType() != ValueType.INTEGER || format == MessageFormat.UINT64) {
                markBad(u);
                return 0;
            }
            long v = u.unpackLong();
            if (v < 0 || v > Integer.MAX_VALUE) {
                bad = true;
                return 0;
            }
            return v;
        }

        private void markBad(MessageUnpacker u) throws IOException {
            bad = true;
            u.skipValue();
        }
    }
}
