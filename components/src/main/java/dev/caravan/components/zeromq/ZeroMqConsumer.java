package dev.caravan.components.zeromq;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;
import org.apache.camel.support.DefaultConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;
import org.zeromq.ZMsg;

/**
 * Receives multipart messages on a SUB or DEALER socket and turns each into one exchange: body = {@code List<byte[]>}
 * of the frames (or the last frame with {@code lastFrameOnly}), headers {@link ZeroMqConstants#FRAME_COUNT},
 * {@link ZeroMqConstants#ADDRESS} and, for SUB, {@link ZeroMqConstants#TOPIC}.
 *
 * <p>Threading: one dedicated thread per consumer creates the {@link ZContext} and the socket, receives, runs the route
 * synchronously (so messages from one socket are processed strictly in arrival order, which the KV-event pipeline's
 * sequence tracking relies on) and finally closes socket and context. No other thread ever touches the socket.
 * {@link #doStart} waits until the socket is bound or connected, so a bad address or a port in use fails the route
 * start; {@link #doStop} clears the running flag and joins the thread, which notices within {@code receiveTimeout}.
 *
 * <p>Reconnection is ZeroMQ's: a connecting socket re-dials forever ({@code reconnectInterval}, back-off up to
 * {@code reconnectIntervalMax}) and resubscribes by itself. Slow joiner: a SUB receives only what is published after
 * its subscription reached the publisher, so the first messages after a (re)connect are lost; the KV-event pipeline
 * recovers them through sequence numbers and replay. Processing failures go to the consumer's exception handler and
 * never stop the loop.
 */
public class ZeroMqConsumer extends DefaultConsumer {

    private static final Logger LOG = LoggerFactory.getLogger(ZeroMqConsumer.class);

    private final ZeroMqConfiguration config;
    private final AtomicLong received = new AtomicLong();
    private volatile boolean running;
    private volatile Thread thread;
    private volatile String boundAddress;

    public ZeroMqConsumer(ZeroMqEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
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

    /** Messages received since start. */
    public long receivedCount() {
        return received.get();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        running = true;
        ZeroMqSocketThread socketThread = new ZeroMqSocketThread(getEndpoint().getCamelContext(), config, "consumer",
                this::receive);
        thread = socketThread.thread();
        try {
            boundAddress = socketThread.start();
        } catch (ZeroMqException e) {
            running = false;
            throw e;
        }
        LOG.info("ZeroMQ {} consumer started on {} (topics {})", config.socketKind().uriName(), boundAddress,
                config.socketKind() == ZeroMqSocketType.SUB ? config.topicList() : "-");
    }

    @Override
    protected void doStop() throws Exception {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.join(config.getReceiveTimeout().toMillis() * 4 + ZeroMqSocketThread.START_TIMEOUT_MS);
            if (t.isAlive()) {
                LOG.warn("ZeroMQ consumer thread {} did not stop; its route is still processing a message", t.getName());
            }
            thread = null;
        }
        LOG.info("ZeroMQ {} consumer stopped on {} after {} messages", config.socketKind().uriName(), boundAddress,
                received.get());
        super.doStop();
    }

    /** The socket thread's loop: receive until stopped, running the route for each message in arrival order. */
    private void receive(ZMQ.Socket socket) {
        while (running) {
            ZMsg msg;
            try {
                msg = ZMsg.recvMsg(socket); // null after receiveTimeout without a message
            } catch (ZMQException e) {
                if (running) {
                    LOG.warn("ZeroMQ receive failed on {}: {}", config.getAddress(), e.toString());
                }
                continue;
            }
            if (msg != null) {
                received.incrementAndGet();
                dispatch(msg);
            }
        }
    }

    private void dispatch(ZMsg msg) {
        List<byte[]> frames = new ArrayList<>(msg.size());
        for (ZFrame frame : msg) {
            frames.add(frame.getData());
        }
        Exchange exchange = createExchange(false);
        try {
            Message in = exchange.getIn();
            in.setBody(config.isLastFrameOnly() && !frames.isEmpty() ? frames.get(frames.size() - 1) : frames);
            in.setHeader(ZeroMqConstants.FRAME_COUNT, frames.size());
            in.setHeader(ZeroMqConstants.ADDRESS, config.getAddress());
            if (config.socketKind() == ZeroMqSocketType.SUB && !frames.isEmpty()) {
                in.setHeader(ZeroMqConstants.TOPIC, new String(frames.get(0), StandardCharsets.UTF_8));
            }
            getProcessor().process(exchange);
        } catch (Exception e) {
            exchange.setException(e);
        } finally {
            if (exchange.getException() != null) {
                getExceptionHandler().handleException("Error processing ZeroMQ message from " + config.getAddress(),
                        exchange, exchange.getException());
            }
            releaseExchange(exchange, false);
        }
    }
}
