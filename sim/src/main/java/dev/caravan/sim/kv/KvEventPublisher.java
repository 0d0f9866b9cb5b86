package dev.caravan.sim.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Publishes KV-event batches over ZeroMQ the way vLLM's {@code ZmqEventPublisher} does.
 *
 * <ul>
 *   <li>PUB socket (HWM 100,000) bound or connected per {@link ZmqEndpoints#shouldBind}; each batch is a 3-frame
 *       message {@code [topic, seq (8-byte big-endian, from 0), msgpack payload]}.</li>
 *   <li>Optional ROUTER replay socket (always bound). A request is exactly {@code [identity, "", start_seq]} (a DEALER
 *       sends {@code ["", start_seq]}); the reply is every buffered batch with {@code seq >= start_seq} as
 *       {@code [identity, "", topic, seq, payload]} followed by the end marker
 *       {@code [identity, "", "", 0xFF..FF, ""]} — the layout of vLLM after PR #45177 and of llm-d-inference-sim;
 *       an SGLang publisher answers in the older layout without the topic frame, {@code [identity, "", seq, payload]}
 *       and {@code [identity, "", 0xFF..FF, ""]}.</li>
 *   <li>Every payload carries this publisher's data-parallel rank (each rank of an engine has its own publisher, on
 *       ports offset by the rank).</li>
 *   <li>The last {@code bufferSteps} batches (vLLM's {@code buffer_steps}, 10,000) are kept for replay.</li>
 * </ul>
 *
 * <p>Threading: both sockets are created, used and closed only by the publisher's own thread; {@link #publish} is
 * thread-safe and only enqueues. Two fault switches: {@link #setStopped} drops batches entirely (no sequence number,
 * like a dead publisher), {@link #setDropLive} sequences and buffers them but does not send them live (a gap that
 * replay can fill).
 */
public final class KvEventPublisher implements AutoCloseable {

    public static final int DEFAULT_BUFFER_STEPS = 10_000;
    public static final int DEFAULT_HWM = 100_000;
    /** Handshake timeout of connecting sockets, ms. */
    static final int HANDSHAKE_IVL_MS = 1_000;
    static final byte[] END_SEQ = {-1, -1, -1, -1, -1, -1, -1, -1};

    private static final Logger LOG = LoggerFactory.getLogger(KvEventPublisher.class);
    private static final long POLL_MS = 10;

    private final String endpoint;
    private final String replayEndpoint;
    private final byte[] topic;
    private final KvEventEncoder encoder;
    private final int bufferSteps;
    private final int dataParallelRank;
    private final Clock clock;
    private final BlockingQueue<Batch> queue = new LinkedBlockingQueue<>(DEFAULT_HWM);
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean running = true;
    private volatile boolean stopped;
    private volatile boolean dropLive;
    private volatile String boundEndpoint;
    private volatile String boundReplayEndpoint;
    private volatile long nextSeq;
    private Thread thread;

    public KvEventPublisher(String endpoint, String replayEndpoint, String topic, KvEventEncoder encoder,
                            int bufferSteps, Clock clock) {
        this(endpoint, replayEndpoint, topic, encoder, bufferSteps, 0, clock);
    }

    /**
     * @param dataParallelRank the rank written into every batch
     */
    public KvEventPublisher(String endpoint, String replayEndpoint, String topic, KvEventEncoder encoder,
                            int bufferSteps, int dataParallelRank, Clock clock) {
        if (endpoint == null || endpoint.isBlank()) {
            throw new IllegalArgumentException("kv events endpoint must be set, was '" + endpoint + "'");
        }
        if (bufferSteps < 1) {
            throw new IllegalArgumentException("bufferSteps must be >= 1, was " + bufferSteps);
        }
        this.endpoint = endpoint;
        this.replayEndpoint = replayEndpoint == null || replayEndpoint.isBlank() ? null : replayEndpoint;
        this.topic = topic == null ? new byte[0] : topic.getBytes(StandardCharsets.UTF_8);
        this.encoder = encoder;
        this.bufferSteps = bufferSteps;
        this.dataParallelRank = dataParallelRank;
        this.clock = clock;
    }

    /** Starts the publisher thread; completes once its sockets are bound/connected (or fails with the bind error). */
    public CompletableFuture<Void> start(String name) {
        thread = new Thread(this::run, "kv-events-" + name);
        thread.setDaemon(true);
        thread.start();
        return started;
    }

    /** Queues one batch (one scheduler step); the timestamp is taken now. Never blocks the caller. */
    public void publish(List<KvEvent> events) {
        if (events.isEmpty() || stopped) {
            dropped.addAndGet(events.isEmpty() ? 0 : 1);
            return;
        }
        Instant now = clock.instant();
        double ts = now.getEpochSecond() + now.getNano() / 1e9;
        if (!queue.offer(new Batch(ts, events, dropLive))) {
            dropped.incrementAndGet();
            LOG.warn("KV event queue full ({} batches); batch dropped", DEFAULT_HWM);
        }
    }

    public void setStopped(boolean stopped) {
        this.stopped = stopped;
    }

    public void setDropLive(boolean dropLive) {
        this.dropLive = dropLive;
    }

    /** The PUB endpoint actually bound (ephemeral port resolved), or the connect address. */
    public String endpoint() {
        return boundEndpoint;
    }

    /** The ROUTER endpoint actually bound, or null without replay. */
    public String replayEndpoint() {
        return boundReplayEndpoint;
    }

    public int dataParallelRank() {
        return dataParallelRank;
    }

    /** Batches sequenced so far (the next sequence number). */
    public long sequenced() {
        return nextSeq;
    }

    /** Batches sent live on the PUB socket. */
    public long published() {
        return published.get();
    }

    /** Batches never sequenced (stopped publisher or full queue). */
    public long dropped() {
        return dropped.get();
    }

    private void run() {
        ArrayDeque<byte[][]> ring = new ArrayDeque<>();
        try (ZContext ctx = new ZContext(1)) {
            ZMQ.Socket pub = ctx.createSocket(SocketType.PUB);
            ZMQ.Socket router = null;
            try {
                pub.setSndHWM(DEFAULT_HWM);
                pub.setLinger(0);
                if (ZmqEndpoints.shouldBind(endpoint)) {
                    pub.bind(endpoint);
                    boundEndpoint = pub.getLastEndpoint();
                } else {
                    // A connecting JeroMQ socket can stall in its handshake (see docs/simulator.md); the handshake
                    // timer makes it reconnect.
                    pub.setHandshakeIvl(HANDSHAKE_IVL_MS);
                    pub.connect(endpoint);
                    boundEndpoint = endpoint;
                }
                if (replayEndpoint != null) {
                    router = ctx.createSocket(SocketType.ROUTER);
                    router.setLinger(0);
                    router.bind(replayEndpoint);
                    boundReplayEndpoint = router.getLastEndpoint();
                }
            } catch (RuntimeException e) {
                started.completeExceptionally(new IllegalStateException("cannot open KV event sockets " + endpoint
                        + (replayEndpoint == null ? "" : " / " + replayEndpoint) + ": " + e.getMessage(), e));
                return;
            }
            LOG.info("KV events on {} (replay {})", boundEndpoint, boundReplayEndpoint);
            started.complete(null);
            loop(pub, router, ring);
        } catch (RuntimeException e) {
            LOG.error("KV event publisher {} failed", endpoint, e);
            started.completeExceptionally(e);
        }
    }

    private void loop(ZMQ.Socket pub, ZMQ.Socket router, ArrayDeque<byte[][]> ring) {
        while (running) {
            if (router != null) {
                serveReplays(router, ring);
            }
            Batch b;
            try {
                b = queue.poll(POLL_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (b == null) {
                continue;
            }
            byte[] seq = ByteBuffer.allocate(8).putLong(nextSeq).array();
            byte[] payload = encoder.encode(b.ts, b.events, dataParallelRank);
            nextSeq++;
            if (!b.dropLive) {
                pub.sendMore(topic);
                pub.sendMore(seq);
                pub.send(payload);
                published.incrementAndGet();
            }
            ring.addLast(new byte[][] {seq, payload});
            if (ring.size() > bufferSteps) {
                ring.pollFirst();
            }
        }
    }

    private void serveReplays(ZMQ.Socket router, ArrayDeque<byte[][]> ring) {
        ZMsg req;
        while ((req = ZMsg.recvMsg(router, ZMQ.DONTWAIT)) != null) {
            ZFrame[] frames = req.toArray(new ZFrame[0]);
            if (frames.length != 3 || frames[2].size() != 8) {
                LOG.warn("Invalid replay request: {} frames", req.size());
                req.destroy();
                continue;
            }
            byte[] identity = frames[0].getData();
            long start = ByteBuffer.wrap(frames[2].getData()).getLong();
            req.destroy();
            boolean withTopic = encoder.kind() == KvPublisherKind.VLLM;
            int sent = 0;
            for (byte[][] entry : ring) {
                if (Long.compareUnsigned(ByteBuffer.wrap(entry[0]).getLong(), start) >= 0) {
                    router.sendMore(identity);
                    router.sendMore(new byte[0]);
                    if (withTopic) {
                        router.sendMore(topic);
                    }
                    router.sendMore(entry[0]);
                    router.send(entry[1]);
                    sent++;
                }
            }
            router.sendMore(identity);
            router.sendMore(new byte[0]);
            if (withTopic) {
                router.sendMore(new byte[0]);
            }
            router.sendMore(END_SEQ);
            router.send(new byte[0]);
            LOG.debug("Replayed {} batches from seq {}", sent, start);
        }
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private record Batch(double ts, List<KvEvent> events, boolean dropLive) {
    }
}
