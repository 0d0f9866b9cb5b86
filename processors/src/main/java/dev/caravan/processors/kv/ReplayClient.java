package dev.caravan.processors.kv;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Asks an engine's replay ROUTER for the batches a subscriber missed. Protocol (docs/design/kv-events.md, "Sequence tracking and replay"): a DEALER
 * sends {@code ["", start_seq(8B BE)]}; the engine answers one message per buffered batch with sequence ≥ start, in
 * order, then an end marker. Two reply layouts exist and both are accepted: after the leading empty delimiter,
 * {@code [seq, payload]} (original vLLM, SGLang) or {@code [topic, seq, payload]} (vLLM after PR #45177, llm-d's
 * simulator). The end marker is sequence {@code 0xFF..FF} or an empty payload.
 *
 * <p>Threading: each {@link #replayFrom} call creates its DEALER socket, uses it and destroys it on the calling thread,
 * so one client may serve any thread (calls are serialised). The {@link ZContext} is the caller's and outlives the
 * client. A request older than the engine's buffer silently returns only what is retained: callers compare the first
 * replayed sequence with what they asked for.
 */
public final class ReplayClient {

    /** One replayed batch; {@code topic} is null in the 2-frame layout. */
    public record Replayed(String topic, long sequence, byte[] payload) {
    }

    /**
     * @param batches  replayed batches in the order received
     * @param complete true when the end marker arrived before the timeout
     */
    public record Result(List<Replayed> batches, boolean complete) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(ReplayClient.class);
    /** Handshake bound for the short-lived socket (see ZeroMqConfiguration#setHandshakeInterval). */
    private static final int HANDSHAKE_INTERVAL_MS = 1_000;

    private final ZContext context;
    private final String endpoint;
    private final Duration timeout;
    private final LongSupplier nanoClock;

    /**
     * @param timeout   longest a whole replay may take, end marker included
     * @param nanoClock monotonic clock for the deadline ({@code System::nanoTime} in production)
     */
    public ReplayClient(ZContext context, String endpoint, Duration timeout, LongSupplier nanoClock) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("replay timeout must be positive, was " + timeout);
        }
        this.context = context;
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.nanoClock = nanoClock;
    }

    public String endpoint() {
        return endpoint;
    }

    /** Requests every retained batch from {@code startSequence} on and collects them until the end marker. */
    public synchronized Result replayFrom(long startSequence) {
        ZMQ.Socket socket = context.createSocket(SocketType.DEALER);
        try {
            socket.setLinger(0);
            socket.setHandshakeIvl(HANDSHAKE_INTERVAL_MS);
            socket.connect(endpoint);
            socket.send(new byte[0], ZMQ.SNDMORE);
            socket.send(KvEventDecoder.sequenceFrame(startSequence), 0);
            long deadline = nanoClock.getAsLong() + timeout.toNanos();
            List<Replayed> out = new ArrayList<>();
            while (true) {
                long remainingMs = (deadline - nanoClock.getAsLong()) / 1_000_000;
                if (remainingMs <= 0) {
                    LOG.warn("KV replay from {} (start {}) timed out after {} batches", endpoint,
                            Long.toUnsignedString(startSequence), out.size());
                    return new Result(out, false);
                }
                socket.setReceiveTimeOut((int) Math.min(Integer.MAX_VALUE, remainingMs));
                ZMsg msg = ZMsg.recvMsg(socket);
                if (msg == null) {
                    continue;
                }
                Replayed r = parse(msg);
                if (r == null) {
                    continue;
                }
                if (r.sequence() == KvEventDecoder.END_SEQUENCE || r.payload().length == 0) {
                    return new Result(out, true);
                }
                out.add(r);
            }
        } finally {
            context.destroySocket(socket);
        }
    }

    /** One reply in either layout, or null (logged) when it is neither. */
    private Replayed parse(ZMsg msg) {
        List<byte[]> frames = new ArrayList<>(msg.size());
        for (ZFrame f : msg) {
            frames.add(f.getData());
        }
        if (!frames.isEmpty() && frames.get(0).length == 0) {
            frames.remove(0); // the DEALER-side empty delimiter
        }
        try {
            if (frames.size() == 3) {
                return new Replayed(new String(frames.get(0), StandardCharsets.UTF_8),
                        KvEventDecoder.sequence(frames.get(1)), frames.get(2));
            }
            if (frames.size() == 2) {
                return new Replayed(null, KvEventDecoder.sequence(frames.get(0)), frames.get(1));
            }
        } catch (KvDecodeException e) {
            LOG.warn("KV replay from {}: ignoring a reply with a bad sequence frame: {}", endpoint, e.getMessage());
            return null;
        }
        LOG.warn("KV replay from {}: ignoring a reply of {} frames", endpoint, frames.size());
        return null;
    }
}
