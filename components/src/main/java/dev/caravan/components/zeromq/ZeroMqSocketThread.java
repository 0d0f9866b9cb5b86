package dev.caravan.components.zeromq;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The one thread a {@link ZeroMqConsumer} or {@link ZeroMqProducer} owns its socket on: ZeroMQ sockets are not
 * thread-safe, so this thread creates the {@link ZContext} and the socket ({@link ZeroMqSockets#open}), runs the
 * endpoint's loop on it, and closes both when the loop returns. {@link #start()} waits until the socket is bound or
 * connected, so a bad address or a port in use fails the route start instead of a later send or receive.
 */
final class ZeroMqSocketThread {

    private static final Logger LOG = LoggerFactory.getLogger(ZeroMqSocketThread.class);
    /** How long {@link #start()} waits for the socket thread to bind or connect. */
    static final long START_TIMEOUT_MS = 10_000;

    private final ZeroMqConfiguration config;
    private final String role;
    private final Consumer<ZMQ.Socket> loop;
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    private final Thread thread;

    /**
     * A daemon thread named {@code zeromq-<type>-<address>}, not started yet.
     *
     * @param role what owns the socket ("consumer", "producer"), for the log
     * @param loop runs on the open socket until the owner stops; the socket closes when it returns
     */
    ZeroMqSocketThread(CamelContext camel, ZeroMqConfiguration config, String role, Consumer<ZMQ.Socket> loop) {
        this.config = config;
        this.role = role;
        this.loop = loop;
        this.thread = camel.getExecutorServiceManager().newThread(
                "zeromq-" + config.socketKind().uriName() + "-" + config.getAddress(), this::run);
        this.thread.setDaemon(true);
    }

    Thread thread() {
        return thread;
    }

    /**
     * Starts the thread and waits for the socket.
     *
     * @return the address the socket actually bound or connected to (with the real port for {@code *})
     * @throws ZeroMqException when the socket cannot be opened (the thread has ended, or was given time to)
     */
    String start() throws InterruptedException, TimeoutException, ZeroMqException {
        thread.start();
        try {
            return ready.get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            thread.join(START_TIMEOUT_MS);
            throw new ZeroMqException("cannot open " + config.socketKind().uriName() + " socket on "
                    + config.getAddress() + ": " + e.getCause());
        }
    }

    private void run() {
        try (ZContext context = new ZContext(1)) {
            ZMQ.Socket socket;
            try {
                socket = ZeroMqSockets.open(context, config);
            } catch (RuntimeException e) {
                ready.completeExceptionally(e);
                return;
            }
            ready.complete(socket.getLastEndpoint() != null ? socket.getLastEndpoint() : config.getAddress());
            loop.accept(socket);
        } catch (RuntimeException e) {
            ready.completeExceptionally(e);
            LOG.error("ZeroMQ {} thread on {} failed", role, config.getAddress(), e);
        }
    }
}
