package dev.caravan.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker address that cannot be connected to, on a loopback-only machine: a listening socket with a backlog of one
 * that never accepts, its accept queue filled at once. Linux drops the SYN of every further connection attempt to a
 * listener whose accept queue is full (no RST, unlike a closed port), so a client's connect hangs until its own connect
 * timeout — what a non-routable address does on a real network, where a loopback-only sandbox has no such address.
 *
 * <p>{@link #open} fails loudly if the queue never fills (a kernel that answers otherwise), rather than letting a
 * connect-timeout test pass for the wrong reason.
 */
public final class StalledListener implements AutoCloseable {

    /** How long a filler waits before concluding that the queue is full. */
    private static final int FILL_PROBE_MS = 300;
    private static final int MAX_FILLERS = 16;

    private final ServerSocket server;
    private final List<Socket> fillers = new ArrayList<>();

    private StalledListener(ServerSocket server) {
        this.server = server;
    }

    public static StalledListener open() throws IOException {
        StalledListener listener = new StalledListener(new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")));
        try {
            listener.fill();
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
        return listener;
    }

    /** Connects until a connection attempt gets no answer: from then on the queue is full. */
    private void fill() throws IOException {
        for (int i = 0; i < MAX_FILLERS; i++) {
            Socket s = new Socket();
            try {
                s.connect(server.getLocalSocketAddress(), FILL_PROBE_MS);
                fillers.add(s);
            } catch (SocketTimeoutException full) {
                s.close();
                return;
            }
        }
        throw new IllegalStateException("the accept queue of " + url() + " did not fill after " + MAX_FILLERS
                + " connections; this kernel does not leave connection attempts unanswered");
    }

    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        for (Socket s : fillers) {
            s.close();
        }
        server.close();
    }
}
