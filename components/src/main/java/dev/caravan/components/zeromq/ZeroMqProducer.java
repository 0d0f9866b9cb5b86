package dev.caravan.components.zeromq;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.NoTypeConversionAvailableException;
import org.apache.camel.support.DefaultAsyncProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZMQ;

/**
 * Publishes each exchange as one multipart message on a PUB socket.
 *
 * <p>Frames: a {@code List} body is sent as those frames ({@code byte[]} as is, anything else converted to
 * {@code byte[]}, strings as UTF-8); any other body is one payload frame, preceded by a topic frame when the
 * {@link ZeroMqConstants#TOPIC} header is set.
 *
 * <p>Threading: route threads only enqueue (bounded by {@code producerQueueSize}; a full queue fails the exchange at
 * once rather than blocking the route); one dedicated thread owns the context and socket, sends in enqueue order and
 * completes each exchange's callback. PUB never blocks: a subscriber past its high-water mark, or not yet connected
 * (slow joiner), silently misses the message, which is ZeroMQ's contract, not an error.
 */
public class ZeroMqProducer extends DefaultAsyncProducer {

    private static final Logger LOG = LoggerFactory.getLogger(ZeroMqProducer.class);
    /** How often the idle socket thread re-checks whether it must stop. */
    private static final long STOP_CHECK_MS = 100;

    private final ZeroMqConfiguration config;
    private volatile BlockingQueue<Pending> queue;
    private volatile boolean running;
    private volatile Thread thread;
    private volatile String boundAddress;

    private record Pending(List<byte[]> frames, Exchange exchange, AsyncCallback callback) {
    }

    public ZeroMqProducer(ZeroMqEndpoint endpoint) {
        super(endpoint);
        this.config = endpoint.getConfiguration();
    }

    @Override
    public ZeroMqEndpoint getEndpoint() {
        return (ZeroMqEndpoint) super.getEndpoint();
    }

    /** The address the socket actually bound or connected to (with the real port for {@code *}), once started. */
    public String boundAddress() {
        return boundAddress;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        queue = new ArrayBlockingQueue<>(config.getProducerQueueSize());
        running = true;
        ZeroMqSocketThread socketThread = new ZeroMqSocketThread(getEndpoint().getCamelContext(), config, "producer",
                this::sendQueued);
        thread = socketThread.thread();
        try {
            boundAddress = socketThread.start();
        } catch (ZeroMqException e) {
            running = false;
            throw e;
        }
        LOG.info("ZeroMQ pub producer started on {}", boundAddress);
    }

    @Override
    protected void doStop() throws Exception {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.join(STOP_CHECK_MS * 4 + ZeroMqSocketThread.START_TIMEOUT_MS);
            thread = null;
        }
        BlockingQueue<Pending> q = queue;
        if (q != null) {
            Pending p;
            while ((p = q.poll()) != null) {
                fail(p.exchange(), p.callback(), "ZeroMQ producer on " + config.getAddress() + " stopped before sending");
            }
        }
        LOG.info("ZeroMQ pub producer stopped on {}", boundAddress);
        super.doStop();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        if (!running) {
            return fail(exchange, callback, "ZeroMQ producer on " + config.getAddress() + " is not started");
        }
        List<byte[]> frames;
        try {
            frames = frames(exchange);
        } catch (NoTypeConversionAvailableException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
        if (!queue.offer(new Pending(frames, exchange, callback))) {
            return fail(exchange, callback, "ZeroMQ producer queue on " + config.getAddress() + " is full ("
                    + config.getProducerQueueSize() + " messages)");
        }
        return false;
    }

    private static boolean fail(Exchange exchange, AsyncCallback callback, String message) {
        exchange.setException(new ZeroMqException(message));
        callback.done(true);
        return true;
    }

    private List<byte[]> frames(Exchange exchange) throws NoTypeConversionAvailableException {
        Object body = exchange.getIn().getBody();
        List<byte[]> frames = new ArrayList<>();
        if (body instanceof List<?> list) {
            for (Object element : list) {
                frames.add(bytes(exchange, element));
            }
        } else {
            String topic = exchange.getIn().getHeader(ZeroMqConstants.TOPIC, String.class);
            if (topic != null) {
                frames.add(topic.getBytes(StandardCharsets.UTF_8));
            }
            frames.add(bytes(exchange, body));
        }
        return frames;
    }

    private static byte[] bytes(Exchange exchange, Object value) throws NoTypeConversionAvailableException {
        if (value instanceof byte[] b) {
            return b;
        }
        if (value instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        if (value == null) {
            return new byte[0];
        }
        return exchange.getContext().getTypeConverter().mandatoryConvertTo(byte[].class, exchange, value);
    }

    /** The socket thread's loop: send queued messages in order until stopped. */
    private void sendQueued(ZMQ.Socket socket) {
        while (running) {
            Pending p;
            try {
                p = queue.poll(STOP_CHECK_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (p != null) {
                send(socket, p);
            }
        }
    }

    private void send(ZMQ.Socket socket, Pending p) {
        try {
            List<byte[]> frames = p.frames();
            boolean ok = true;
            for (int i = 0; i < frames.size() && ok; i++) {
                ok = socket.send(frames.get(i), i < frames.size() - 1 ? ZMQ.SNDMORE : 0);
            }
            if (!ok) {
                p.exchange().setException(new ZeroMqException("ZeroMQ send failed on " + config.getAddress()));
            }
        } catch (RuntimeException e) {
            p.exchange().setException(e);
        } finally {
            p.callback().done(false);
        }
    }
}
