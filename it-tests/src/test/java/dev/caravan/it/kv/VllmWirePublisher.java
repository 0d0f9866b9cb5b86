package dev.caravan.it.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A KV-event publisher written here from vLLM's wire format ({@code vllm/distributed/kv_events.py};
 * docs/design/upstream.md, "vLLM: KV events on the wire") with JeroMQ and msgpack-core — neither the simulator's
 * encoder nor the gateway's decoder — so the gateway is tested against the format, not against itself.
 *
 * <ul>
 *   <li>PUB bound on {@code tcp://127.0.0.1:port}; every message is 3 frames: topic (empty), the sequence as 8 bytes
 *       big-endian from 0, the msgpack batch {@code [ts, events, data_parallel_rank]};</li>
 *   <li>events in the current map layout (vLLM PR #42892): {@code {"type": "BlockStored", "block_hashes": [...],
 *       "parent_block_hash", "token_ids", "block_size", "lora_id", "medium", "lora_name", "extra_keys", "group_idx",
 *       "kv_cache_spec_kind", "kv_cache_spec_sliding_window"}} (the last three for hybrid models, vLLM PRs #37688 and
 *       #40984; a sliding-window or Mamba group's store names only the blocks it cached but carries the tokens of the
 *       whole range, as {@code BlockPool.cache_full_blocks} does); hashes as msgpack uint64 (unsigned, {@code 0xcf} above 2^63) or, as with
 *       {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0}, as 32-byte {@code bin} digests whose last 8 bytes are the id;</li>
 *   <li>a ROUTER replay socket: {@code [identity, "", start_seq]} is answered with every buffered batch
 *       {@code seq >= start} as {@code [identity, "", topic, seq, payload]}, then {@code [identity, "", "", END, ""]}
 *       (vLLM after PR #45177).</li>
 * </ul>
 * Both sockets live on the publisher's own thread (ZeroMQ sockets are not thread-safe); {@link #publish} only queues.
 */
final class VllmWirePublisher implements AutoCloseable {

    private static final byte[] END = {-1, -1, -1, -1, -1, -1, -1, -1};

    /** One BlockStored as vLLM declares it; null fields are sent as nil, absent defaults omitted. */
    record Stored(long[] hashes, Long parent, int[] tokens, int blockSize, String medium, String loraName,
                  List<List<Object>> extraKeys, Integer groupIdx, String kind, Integer slidingWindow) {

        Stored(long[] hashes, Long parent, int[] tokens, int blockSize, String medium, String loraName,
               List<List<Object>> extraKeys, Integer groupIdx, String kind) {
            this(hashes, parent, tokens, blockSize, medium, loraName, extraKeys, groupIdx, kind, null);
        }

        static Stored gpu(long[] hashes, Long parent, int[] tokens, int blockSize) {
            return new Stored(hashes, parent, tokens, blockSize, "GPU", null, null, null, null);
        }
    }

    /** One BlockRemoved. */
    record Removed(long[] hashes, String medium, Integer groupIdx) {
    }

    private final ZContext context = new ZContext(1);
    private final ZMQ.Socket pub;
    private final ZMQ.Socket replay;
    private final int rank;
    private final boolean bytesHashes;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final List<byte[]> buffer = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long sent;

    /**
     * @param bytesHashes publish hashes as 32-byte digests (VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0)
     */
    VllmWirePublisher(String pubEndpoint, String replayEndpoint, int rank, boolean bytesHashes) {
        this.rank = rank;
        this.bytesHashes = bytesHashes;
        pub = context.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.setSndHWM(100_000);
        pub.bind(pubEndpoint);
        replay = context.createSocket(SocketType.ROUTER);
        replay.setLinger(0);
        replay.bind(replayEndpoint);
        thread = new Thread(this::loop, "vllm-wire-publisher-" + rank);
        thread.setDaemon(true);
        thread.start();
    }

    String endpoint() {
        return pub.getLastEndpoint();
    }

    String replayEndpoint() {
        return replay.getLastEndpoint();
    }

    /** Queues one batch of these events (Stored, Removed or "AllBlocksCleared"). */
    void publish(Object... events) {
        queue.add(encode(events));
    }

    /** Batches sent so far (the next sequence number). */
    long sent() {
        return sent;
    }

    private void loop() {
        try {
            while (running) {
                while (replay.getEvents() > 0 && (replay.getEvents() & ZMQ.Poller.POLLIN) != 0) {
                    serveReplay();
                }
                Object next = queue.poll(5, TimeUnit.MILLISECONDS);
                if (next instanceof byte[] payload) {
                    long seq = buffer.size();
                    buffer.add(payload);
                    pub.send(new byte[0], ZMQ.SNDMORE);
                    pub.send(sequence(seq), ZMQ.SNDMORE);
                    pub.send(payload, 0);
                    sent = seq + 1;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            pub.close();
            replay.close();
        }
    }

    private void serveReplay() {
        List<byte[]> frames = new ArrayList<>();
        do {
            frames.add(replay.recv(0));
        } while (replay.hasReceiveMore());
        if (frames.size() != 3) {
            return; // vLLM logs "Invalid replay request" and ignores it
        }
        byte[] identity = frames.get(0);
        long start = 0;
        for (byte b : frames.get(2)) {
            start = (start << 8) | (b & 0xff);
        }
        for (long seq = Math.max(0, start); seq < buffer.size(); seq++) {
            replay.send(identity, ZMQ.SNDMORE);
            replay.send(new byte[0], ZMQ.SNDMORE);
            replay.send(new byte[0], ZMQ.SNDMORE); // the (empty) topic
            replay.send(sequence(seq), ZMQ.SNDMORE);
            replay.send(buffer.get((int) seq), 0);
        }
        replay.send(identity, ZMQ.SNDMORE);
        replay.send(new byte[0], ZMQ.SNDMORE);
        replay.send(new byte[0], ZMQ.SNDMORE);
        replay.send(END, ZMQ.SNDMORE);
        replay.send(new byte[0], 0);
    }

    private static byte[] sequence(long seq) {
        byte[] out = new byte[8];
        for (int i = 7; i >= 0; i--) {
            out[i] = (byte) seq;
            seq >>>= 8;
        }
        return out;
    }

    private byte[] encode(Object[] events) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3).packDouble(System.currentTimeMillis() / 1000.0).packArrayHeader(events.length);
            for (Object e : events) {
                if (e instanceof Stored s) {
                    stored(p, s);
                } else if (e instanceof Removed r) {
                    int n = 3 + (r.groupIdx() == null ? 0 : 1);
                    p.packMapHeader(n).packString("type").packString("BlockRemoved");
                    p.packString("block_hashes");
                    hashes(p, r.hashes());
                    p.packString("medium").packString(r.medium());
                    if (r.groupIdx() != null) {
                        p.packString("group_idx").packInt(r.groupIdx());
                    }
                } else {
                    p.packMapHeader(1).packString("type").packString("AllBlocksCleared");
                }
            }
            p.packInt(rank);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void stored(MessageBufferPacker p, Stored s) throws IOException {
        int n = 8 + (s.extraKeys() == null ? 0 : 1) + (s.groupIdx() == null ? 0 : 1) + (s.kind() == null ? 0 : 1)
                + (s.slidingWindow() == null ? 0 : 1);
        p.packMapHeader(n).packString("type").packString("BlockStored");
        p.packString("block_hashes");
        hashes(p, s.hashes());
        p.packString("parent_block_hash");
        if (s.parent() == null) {
            p.packNil();
        } else {
            hash(p, s.parent());
        }
        p.packString("token_ids").packArrayHeader(s.tokens().length);
        for (int t : s.tokens()) {
            p.packInt(t);
        }
        p.packString("block_size").packInt(s.blockSize());
        p.packString("lora_id").packNil();
        p.packString("medium").packString(s.medium());
        p.packString("lora_name");
        if (s.loraName() == null) {
            p.packNil();
        } else {
            p.packString(s.loraName());
        }
        if (s.extraKeys() != null) {
            p.packString("extra_keys").packArrayHeader(s.extraKeys().size());
            for (List<Object> block : s.extraKeys()) {
                if (block == null) {
                    p.packNil();
                    continue;
                }
                p.packArrayHeader(block.size());
                for (Object k : block) {
                    p.packString((String) k);
                }
            }
        }
        if (s.groupIdx() != null) {
            p.packString("group_idx").packInt(s.groupIdx());
        }
        if (s.kind() != null) {
            p.packString("kv_cache_spec_kind").packString(s.kind());
        }
        if (s.slidingWindow() != null) {
            p.packString("kv_cache_spec_sliding_window").packInt(s.slidingWindow());
        }
    }

    private void hashes(MessageBufferPacker p, long[] hashes) throws IOException {
        p.packArrayHeader(hashes.length);
        for (long h : hashes) {
            hash(p, h);
        }
    }

    /** An ExternalBlockHash: uint64 (vLLM's default), or the digest's bytes whose last 8 are the id. */
    private void hash(MessageBufferPacker p, long h) throws IOException {
        if (bytesHashes) {
            byte[] digest = new byte[32];
            for (int i = 0; i < 24; i++) {
                digest[i] = (byte) (h * 31 + i); // the leading bytes carry more digest; only the last 8 name it
            }
            for (int i = 0; i < 8; i++) {
                digest[31 - i] = (byte) (h >>> (8 * i));
            }
            p.packBinaryHeader(32).writePayload(digest);
        } else if (h < 0) {
            p.packBigInteger(new BigInteger(Long.toUnsignedString(h))); // 0xcf uint64, as msgspec writes it
        } else {
            p.packLong(h);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5_000);
        context.close();
    }
}
