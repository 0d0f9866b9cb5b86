package dev.caravan.processors.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A real ROUTER socket playing an engine's replay endpoint, for tests: it keeps a buffer of (seq, payload) and answers
 * each {@code [identity, "", start]} request with every buffered batch ≥ start, then the end marker, in the chosen
 * layout. Its socket lives on its own thread.
 */
public final class ReplayServer implements AutoCloseable {

    /** Reply layouts engines use. */
    public enum Layout {
        /** vLLM before PR #45177, SGLang: {@code [id, "", seq, payload]}, end {@code [id, "", END, ""]}. */
        WITHOUT_TOPIC,
        /** vLLM after PR #45177, llm-d sim: {@code [id, "", topic, seq, payload]}, end {@code [id, "", "", END, ""]}. */
        WITH_TOPIC,
        /** Never answers (a hung engine). */
        SILENT
    }

    private final Layout layout;
    private final String topic;
    private final TreeMap<Long, byte[]> buffer = new TreeMap<>(Long::compareUnsigned);
    private final ZContext context = new ZContext(1);
    private final AtomicInteger requests = new AtomicInteger();
    private final List<Long> requestedStarts = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private final String endpoint;

    public ReplayServer(Layout layout, String topic, Map<Long, byte[]> batches) throws Exception {
        this.layout = layout;
        this.topic = topic;
        this.buffer.putAll(batches);
        CompletableFuture<String> bound = new CompletableFuture<>();
        thread = new Thread(() -> serve(bound), "replay-server");
        thread.start();
        endpoint = bound.get(10, TimeUnit.SECONDS);
    }

    public String endpoint() {
        return endpoint;
    }

    public int requests() {
        return requests.get();
    }

    public List<Long> requestedStarts() {
        return new ArrayList<>(requestedStarts);
    }

    private void serve(CompletableFuture<String> bound) {
        ZMQ.Socket router = context.createSocket(SocketType.ROUTER);
        router.setLinger(0);
        router.setHandshakeIvl(1_000);
        router.setReceiveTimeOut(50);
        router.bind("tcp://127.0.0.1:*");
        bound.complete(router.getLastEndpoint());
        while (running) {
            ZMsg req = ZMsg.recvMsg(router);
            if (req == null || req.size() != 3) {
                continue; // vLLM ignores anything but [identity, "", start]
            }
            byte[] identity = req.pop().getData();
            req.pop();
            long start;
            try {
                start = KvEventDecoder.sequence(req.pop().getData());
            } catch (KvDecodeException e) {
                continue;
            }
            requests.incrementAndGet();
            requestedStarts.add(start);
            if (layout == Layout.SILENT) {
                continue;
            }
            for (Map.Entry<Long, byte[]> e : buffer.tailMap(start, true).entrySet()) {
                reply(router, identity, KvEventDecoder.sequenceFrame(e.getKey()), e.getValue());
            }
            reply(router, identity, KvEventDecoder.sequenceFrame(KvEventDecoder.END_SEQUENCE), new byte[0]);
        }
        router.close();
    }

    private void reply(ZMQ.Socket router, byte[] identity, byte[] seq, byte[] payload) {
        router.send(identity, ZMQ.SNDMORE);
        router.send(new byte[0], ZMQ.SNDMORE);
        if (layout == Layout.WITH_TOPIC) {
            byte[] t = payload.length == 0 ? new byte[0] : topic.getBytes(StandardCharsets.UTF_8);
            router.send(t, ZMQ.SNDMORE);
        }
        router.send(seq, ZMQ.SNDMORE);
        router.send(payload, 0);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
        context.close();
    }
}
