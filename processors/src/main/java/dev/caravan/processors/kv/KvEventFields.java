package dev.caravan.processors.kv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.msgpack.core.ExtensionTypeHeader;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageSizeException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;
import org.msgpack.value.ValueType;

import dev.caravan.policies.kv.KvEvent;

/**
 * The fields of one KV event, collected from either layout (positional array or {@code type}-tagged map) and turned
 * into a {@link KvEvent}: the event-level half of {@link KvEventDecoder}, whose rules it follows. One instance per
 * event; not thread-safe.
 *
 * <p>Nothing is sized by a length field the payload cannot fill: an array, map, string or binary header that claims
 * more elements or bytes than are left of the payload (each element takes at least one byte) is a
 * {@link MessageSizeException}, which leaves the batch unreadable, before anything is allocated for it; the values
 * kept from {@code extra_keys} nest at most {@value #MAX_DEPTH} deep (deeper marks the event bad).
 */
final class KvEventFields {

    /** Nesting kept from {@code extra_keys} (vLLM's tuples nest one or two levels). */
    static final int MAX_DEPTH = 16;

    /** vLLM's declaration order, the positional order of the legacy array layout (SGLang's is its prefix). */
    static final String[] STORED_FIELDS = {
        "block_hashes", "parent_block_hash", "token_ids", "block_size", "lora_id", "medium", "lora_name", "extra_keys",
        "group_idx", "kv_cache_spec_kind", "kv_cache_spec_sliding_window", "locality", "ownership", "session_id"};
    static final String[] REMOVED_FIELDS = {"block_hashes", "medium", "group_idx", "locality", "ownership"};

    private String tag;
    private long[] hashes;
    private Long parent;
    private int[] tokens = new int[0];
    private int blockSize;
    private String medium;
    private String loraName;
    private String cacheSalt;
    private List<Value> extraKeys;
    private Integer groupIdx;
    private String specKind;
    private Integer slidingWindow;
    private String locality;
    private boolean bad;
    private final long payloadLength;

    private KvEventFields(long payloadLength) {
        this.payloadLength = payloadLength;
    }

    /**
     * Reads one event (array or map); null when it is skipped (unknown tag, malformed field, remote blocks).
     *
     * @param payloadLength the length of the payload {@code u} reads
     */
    static KvEvent read(MessageUnpacker u, long payloadLength) throws IOException {
        KvEventFields f = new KvEventFields(payloadLength);
        ValueType type = u.getNextFormat().getValueType();
        if (type == ValueType.ARRAY) {
            int n = f.fits(u, u.unpackArrayHeader());
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
            int n = f.fits(u, u.unpackMapHeader());
            for (int i = 0; i < n; i++) {
                String key = u.getNextFormat().getValueType() == ValueType.STRING ? u.unpackString() : KvEventDecoder.skipKey(u);
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
                groupIdx, specKind, slidingWindow);
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
            case "kv_cache_spec_sliding_window" -> slidingWindow = u.tryUnpackNil() ? null : (int) boundedInt(u);
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
        int n = fits(u, u.unpackArrayHeader());
        List<Value> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(value(u, 1));
        }
        return out;
    }

    /** {@link MessageUnpacker#unpackValue}, with every header checked by {@link #fits} and the nesting bounded. */
    private Value value(MessageUnpacker u, int depth) throws IOException {
        ValueType type = u.getNextFormat().getValueType();
        if (depth > MAX_DEPTH && (type == ValueType.ARRAY || type == ValueType.MAP)) {
            markBad(u);
            return ValueFactory.newNil();
        }
        switch (type) {
            case ARRAY -> {
                Value[] items = new Value[fits(u, u.unpackArrayHeader())];
                for (int i = 0; i < items.length; i++) {
                    items[i] = value(u, depth + 1);
                }
                return ValueFactory.newArray(items, true);
            }
            case MAP -> {
                int n = fits(u, u.unpackMapHeader());
                Value[] kvs = new Value[fits(u, 2L * n)];
                for (int i = 0; i < kvs.length; i++) {
                    kvs[i] = value(u, depth + 1);
                }
                return ValueFactory.newMap(kvs, true);
            }
            case STRING -> {
                return ValueFactory.newString(u.readPayload(fits(u, u.unpackRawStringHeader())), true);
            }
            case BINARY -> {
                return ValueFactory.newBinary(u.readPayload(fits(u, u.unpackBinaryHeader())), true);
            }
            case EXTENSION -> {
                ExtensionTypeHeader h = u.unpackExtensionTypeHeader();
                return ValueFactory.newExtension(h.getType(), u.readPayload(fits(u, h.getLength())));
            }
            default -> {
                return u.unpackValue(); // a scalar: nil, boolean, integer, float
            }
        }
    }

    /**
     * {@code count} when that many elements or bytes can still follow in the payload (each takes at least one byte);
     * otherwise the header lies and the batch is unreadable.
     */
    private int fits(MessageUnpacker u, long count) {
        long left = payloadLength - u.getTotalReadBytes();
        if (count > left) {
            throw new MessageSizeException("a length of " + count + " where " + left + " bytes are left", count);
        }
        return (int) count;
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
        int n = fits(u, u.unpackArrayHeader());
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
            byte[] digest = u.readPayload(fits(u, u.unpackBinaryHeader()));
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
        int n = fits(u, u.unpackArrayHeader());
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
