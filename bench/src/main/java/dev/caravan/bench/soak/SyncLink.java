package dev.caravan.bench.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The network path to one replica's sync member: a TCP proxy listening on the member's announced address. Cutting the
 * links of both replicas is a network partition between them ({@link #cut()} closes every connection through the
 * proxy and refuses new ones; {@link #heal()} lets traffic through again). Client traffic does not pass through it, so
 * a partition separates the replicas from each other, not from clients or engines. One thread accepts, two per
 * connection copy bytes (a handful of connections between two members).
 */
final class SyncLink implements AutoCloseable {

    private final InetSocketAddress listen;
    private final InetSocketAddress target;
    private final Set<Socket[]> pairs = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private ServerSocket server;

    SyncLink(InetSocketAddress listen, InetSocketAddress target) {
        this.listen = listen;
        this.target = target;
    }

    /** Starts listening (after the member behind it listens: a joiner then never waits on a dead end). */
    SyncLink open() throws IOException {
        server = new ServerSocket(listen.getPort(), 50, InetAddress.getByName(listen.getHostString()));
        Thread acceptor = new Thread(this::accept, "soak-sync-link-" + listen.getPort());
        acceptor.setDaemon(true);
        acceptor.start();
        return this;
    }

    void cut() {
        cut = true;
        pairs.forEach(SyncLink::closeQuietly);
    }

    void heal() {
        cut = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (cut) {
                    client.close();
                    continue;
                }
                Socket upstream = new Socket();
                try {
                    upstream.connect(target, 2000);
                } catch (IOException refused) {
                    client.close(); // the member is down (a killed replica): the peer retries
                    continue;
                }
                Socket[] pair = {client, upstream};
                pairs.add(pair);
                pump(pair, client, upstream);
                pump(pair, upstream, client);
            } catch (IOException e) {
                // the server socket closed
            }
        }
    }

    private void pump(Socket[] pair, Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                    out.write(buf, 0, n);
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(pair);
                pairs.remove(pair);
            }
        }, "soak-sync-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket[] pair) {
        for (Socket s : pair) {
            try {
                s.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    @Override
    public void close() {
        cut();
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
    }
}
