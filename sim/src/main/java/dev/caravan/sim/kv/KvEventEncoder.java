package dev.caravan.sim.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Encodes a KV-event batch as the emulated engine's msgspec encoder does (byte for byte; the vLLM forms are checked
 * against the byte vectors of docs/design/upstream.md, "vLLM: KV events on the wire").
 *
 * <p><b>vLLM</b> ({@link KvPublisherKind#VLLM}): the batch is {@code [ts, events, data_parallel_rank]} with
 * {@code ts} as float64; events in the chosen {@link KvEventLayout}; ids as unsigned 64-bit integers (smallest form,
 * {@code 0xcf} when the top bit is set); {@code lora_id}/{@code lora_name} nil; {@code extra_keys} (one entry per
 * block, {@code [cache_salt]} for block 0) only when a salt was given. A CPU-tier store is what vLLM's offloading
 * connector publishes: {@code parent_block_hash} nil, {@code token_ids} empty, {@code block_size} 0,
 * {@code medium "CPU"}. A hybrid model's events add {@code group_idx}, {@code kv_cache_spec_kind} and (sliding window)
 * {@code kv_cache_spec_sliding_window} to stores and {@code group_idx} to removals ({@link KvGroup}); without a group
 * they are left off, as a single-group vLLM before PR #33304 sends them. With {@code intHashes} false (vLLM's {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0}) block
 * and parent hashes are the full digests as msgpack {@code bin} (32 bytes for sha256, 16 for xxhash).
 *
 * <p><b>SGLang</b> ({@link KvPublisherKind#SGLANG}): always positional arrays with every field (no
 * {@code omit_defaults}): {@code [ts, events, attn_dp_rank]}; one
 * {@code ["BlockStored", [id], parent|nil, page_tokens, page_len, nil, medium]} per page, ids as signed 64-bit
 * integers, the parent of page k being page k-1; {@code ["BlockRemoved", [id], medium]}; medium {@code GPU} or
 * {@code CPU_PINNED} (its host tier), CPU stores keeping their tokens and parent. Stateless and thread-safe.
 */
public final class KvEventEncoder {

    private final KvPublisherKind kind;
    private final KvEventLayout layout;
    private final boolean intHashes;

    /**
     * @param intHashes vLLM: publish 64-bit ints (its default) or the full digests; SGLang always publishes ints
     */
    public KvEventEncoder(KvPublisherKind kind, KvEventLayout layout, boolean intHashes) {
        this.kind = kind;
        this.layout = layout;
        this.intHashes = intHashes || kind == KvPublisherKind.SGLANG;
    }

    public KvEventEncoder(KvPublisherKind kind, KvEventLayout layout) {
        this(kind, layout, true);
    }

    /** A vLLM encoder with int hashes. */
    public KvEventEncoder(KvEventLayout layout) {
        this(KvPublisherKind.VLLM, layout);
    }

    public KvEventLayout layout() {
        return layout;
    }

    public KvPublisherKind kind() {
        return kind;
    }

    /** One batch payload (frame 2 of a live message). */
    public byte[] encode(double ts, List<KvEvent> events, int dataParallelRank) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3);
            p.packDouble(ts);
            if (kind == KvPublisherKind.SGLANG) {
                packSglang(p, events);
            } else {
                p.packArrayHeader(events.size());
                for (KvEvent e : events) {
                    if (layout == KvEventLayout.MAP) {
                        packVllmMap(p, e);
                    } else {
                        packVllmArray(p, e);
                    }
                }
            }
            p.packInt(dataParallelRank);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("msgpack encoding into memory failed", e);
        }
    }

    private static String vllmMedium(KvEvent.Medium m) {
        return m == KvEvent.Medium.CPU ? "CPU" : "GPU";
    }

    private void packVllmMap(MessageBufferPacker p, KvEvent e) throws IOException {
        if (e instanceof KvEvent.BlockStored s) {
            boolean cpu = s.medium() == KvEvent.Medium.CPU;
            boolean salted = salted(s);
            KvGroup g = s.group();
            p.packMapHeader(8 + (salted ? 1 : 0) + (g == null ? 0 : g.slidingWindow() == null ? 2 : 3));
            p.packString("type").packString("BlockStored");
            p.packString("block_hashes");
            packHashes(p, s.blockHashes(), s.blockDigests());
            p.packString("parent_block_hash");
            packHashOrNil(p, cpu ? null : s.parentHash(), s.parentDigest());
            p.packString("token_ids");
            packTokens(p, cpu ? new int[0] : s.tokenIds());
            p.packString("block_size").packInt(cpu ? 0 : s.blockSize());
            p.packString("lora_id").packNil();
            p.packString("medium").packString(vllmMedium(s.medium()));
            p.packString("lora_name").packNil();
            if (salted) {
                p.packString("extra_keys");
                packExtraKeys(p, s);
            }
            if (g != null) {
                p.packString("group_idx").packInt(g.index());
                p.packString("kv_cache_spec_kind").packString(g.kind());
                if (g.slidingWindow() != null) {
                    p.packString("kv_cache_spec_sliding_window").packInt(g.slidingWindow());
                }
            }
        } else if (e instanceof KvEvent.BlockRemoved r) {
            p.packMapHeader(r.group() == null ? 3 : 4);
            p.packString("type").packString("BlockRemoved");
            p.packString("block_hashes");
            packHashes(p, r.blockHashes(), r.blockDigests());
            p.packString("medium").packString(vllmMedium(r.medium()));
            if (r.group() != null) {
                p.packString("group_idx").packInt(r.group().index());
            }
        } else {
            p.packMapHeader(1);
            p.packString("type").packString("AllBlocksCleared");
        }
    }

    /**
     * Positional: a trailing field at its default is left off, an earlier one is sent as nil (msgspec's
     * {@code omit_defaults} with {@code array_like}), so a group's store sends {@code extra_keys} nil when unsalted.
     */
    private void packVllmArray(MessageBufferPacker p, KvEvent e) throws IOException {
        if (e instanceof KvEvent.BlockStored s) {
            boolean cpu = s.medium() == KvEvent.Medium.CPU;
            boolean salted = salted(s);
            KvGroup g = s.group();
            p.packArrayHeader(g != null ? (g.slidingWindow() == null ? 11 : 12) : salted ? 9 : 8);
            p.packString("BlockStored");
            packHashes(p, s.blockHashes(), s.blockDigests());
            packHashOrNil(p, cpu ? null : s.parentHash(), s.parentDigest());
            packTokens(p, cpu ? new int[0] : s.tokenIds());
            p.packInt(cpu ? 0 : s.blockSize());
            p.packNil();
            p.packString(vllmMedium(s.medium()));
            p.packNil();
            if (salted) {
                packExtraKeys(p, s);
            } else if (g != null) {
                p.packNil();
            }
            if (g != null) {
                p.packInt(g.index());
                p.packString(g.kind());
                if (g.slidingWindow() != null) {
                    p.packInt(g.slidingWindow());
                }
            }
        } else if (e instanceof KvEvent.BlockRemoved r) {
            p.packArrayHeader(r.group() == null ? 3 : 4);
            p.packString("BlockRemoved");
            packHashes(p, r.blockHashes(), r.blockDigests());
            p.packString(vllmMedium(r.medium()));
            if (r.group() != null) {
                p.packInt(r.group().index());
            }
        } else {
            p.packArrayHeader(1);
            p.packString("AllBlocksCleared");
        }
    }

    /** {@code extra_keys} is sent for a salted GPU store naming at least one block (one entry per named block). */
    private static boolean salted(KvEvent.BlockStored s) {
        return s.cacheSalt() != null && s.medium() != KvEvent.Medium.CPU && s.blockHashes().length > 0;
    }

    /** vLLM's per-block extra keys: {@code [cache_salt]} for block 0 (the run's first block), nil for the others. */
    private static void packExtraKeys(MessageBufferPacker p, KvEvent.BlockStored s) throws IOException {
        p.packArrayHeader(s.blockHashes().length);
        for (int i = 0; i < s.blockHashes().length; i++) {
            if (i == 0) {
                p.packArrayHeader(1).packString(s.cacheSalt());
            } else {
                p.packNil();
            }
        }
    }

    private static void packSglang(MessageBufferPacker p, List<KvEvent> events) throws IOException {
        int n = 0;
        for (KvEvent e : events) {
            n += e instanceof KvEvent.BlockStored s ? s.blockHashes().length
                    : e instanceof KvEvent.BlockRemoved r ? r.blockHashes().length : 1;
        }
        p.packArrayHeader(n);
        for (KvEvent e : events) {
            if (e instanceof KvEvent.BlockStored s) {
                Long parent = s.parentHash();
                int page = s.blockSize();
                for (int i = 0; i < s.blockHashes().length; i++) {
                    p.packArrayHeader(7);
                    p.packString("BlockStored");
                    p.packArrayHeader(1).packLong(s.blockHashes()[i]);
                    if (parent == null) {
                        p.packNil();
                    } else {
                        p.packLong(parent);
                    }
                    packTokens(p, Arrays.copyOfRange(s.tokenIds(), i * page, (i + 1) * page));
                    p.packInt(page);
                    p.packNil();
                    p.packString(sglangMedium(s.medium()));
                    parent = s.blockHashes()[i];
                }
            } else if (e instanceof KvEvent.BlockRemoved r) {
                for (long h : r.blockHashes()) {
                    p.packArrayHeader(3);
                    p.packString("BlockRemoved");
                    p.packArrayHeader(1).packLong(h);
                    p.packString(sglangMedium(r.medium()));
                }
            } else {
                p.packArrayHeader(1);
                p.packString("AllBlocksCleared");
            }
        }
    }

    private static String sglangMedium(KvEvent.Medium m) {
        return m == KvEvent.Medium.CPU ? "CPU_PINNED" : "GPU";
    }

    /** vLLM's ids: unsigned ints, or (int hashes off) the digests as bin where known. */
    private void packHashes(MessageBufferPacker p, long[] hashes, byte[][] digests) throws IOException {
        p.packArrayHeader(hashes.length);
        for (int i = 0; i < hashes.length; i++) {
            packHash(p, hashes[i], digests == null ? null : digests[i]);
        }
    }

    private void packHashOrNil(MessageBufferPacker p, Long hash, byte[] digest) throws IOException {
        if (hash == null) {
            p.packNil();
        } else {
            packHash(p, hash, digest);
        }
    }

    private void packHash(MessageBufferPacker p, long hash, byte[] digest) throws IOException {
        if (!intHashes && digest != null) {
            p.packBinaryHeader(digest.length);
            p.writePayload(digest);
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
