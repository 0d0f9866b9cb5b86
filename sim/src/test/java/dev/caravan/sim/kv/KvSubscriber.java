package dev.caravan.sim.kv;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A test SUB socket on one KV-event endpoint that decodes with {@link KvEventReader}. Connects with a 1 s handshake
 * interval (see KvEventStreamTest) and works around ZeroMQ's slow joiner by probing until a batch arrives.
 */
final class KvSubscriber implements AutoCloseable {

    /** One received message. */
    record Received(long seq, KvEventReader.Batch batch) {
    }

    private final ZContext zmq = new ZContext();
    private final ZMQ.Socket sub;
    private final List<Received> received = new ArrayList<>();

    KvSubscriber(String endpoint) {
        sub = zmq.createSocket(SocketType.SUB);
        sub.subscribe(new byte[0]);
        sub.setReceiveTimeOut(100);
        sub.setHandshakeIvl(1_000);
        sub.connect(endpoint);
    }

    /** Calls {@code probe} (which must make the engine publish) until this subscriber has received something. */
    void join(Runnable probe) {
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            probe.run();
            return !poll().isEmpty();
        });
        received.clear();
    }

    /** Everything received since the last call. */
    List<Received> poll() {
        List<Received> out = new ArrayList<>();
        ZMsg m;
        while ((m = ZMsg.recvMsg(sub)) != null) {
            ZFrame[] f = m.toArray(new ZFrame[0]);
            try {
                out.add(new Received(ByteBuffer.wrap(f[1].getData()).getLong(), KvEventReader.read(f[2].getData())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        received.addAll(out);
        return out;
    }

    /** Waits until a received event matches; returns it. */
    KvEventReader.Event awaitEvent(Predicate<KvEventReader.Event> match) {
        KvEventReader.Event[] found = new KvEventReader.Event[1];
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            poll();
            for (Received r : received) {
                for (KvEventReader.Event e : r.batch().events()) {
                    if (match.test(e)) {
                        found[0] = e;
                        return true;
                    }
                }
            }
            return false;
        });
        return found[0];
    }

    /** Every batch received so far (after {@link #join}). */
    List<Received> received() {
        poll();
        return List.copyOf(received);
    }

    @Override
    public void close() {
        zmq.close();
    }
}
