package dev.caravan.it.replica;

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
 * A TCP proxy between sync members that a test cuts to make a network partition: {@link #cut()} drops every
 * connection through it and refuses new ones, {@link #refuseFrom} does so for one client address only, {@link #heal()}
 * lets traffic through again. One thread accepts; two per connection copy bytes. It listens only once {@link #open()}
 * is called: a proxy that accepted connections for a member not yet started would make a joining member wait for it
 * (the TCP handshake succeeds, then the connection closes), where a refused connection lets it go on at once.
 */
final class TcpProxy implements AutoCloseable {

    private final String listenHost;
    private final int listenPort;
    private final InetSocketAddress target;
    private ServerSocket server;
    private final Set<Socket[]> pairs = ConcurrentHashMap.newKeySet();
    private final Set<String> refused = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    TcpProxy(String listenHost, int listenPort, InetSocketAddress target) {
        this.listenHost = listenHost;
        this.listenPort = listenPort;
        this.target = target;
    }

    /** Starts listening. */
    TcpProxy open() throws IOException {
        server = new ServerSocket(listenPort, 50, InetAddress.getByName(listenHost));
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + listenPort);
        acceptor.setDaemon(true);
        acceptor.start();
        return this;
    }

    int port() {
        return listenPort;
    }

    /** The partition: every connection through the proxy is closed and new ones are refused. */
    void cut() {
        cut = true;
        pairs.forEach(TcpProxy::closeQuietly);
    }

    /** Cuts only the connections whose client is {@code address} (a member connecting out from it). */
    void refuseFrom(String address) {
        refused.add(address);
        pairs.stream().filter(p -> p[0].getInetAddress().getHostAddress().equals(address))
                .forEach(TcpProxy::closeQuietly);
    }

    void heal() {
        cut = false;
        refused.clear();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (cut || refused.contains(client.getInetAddress().getHostAddress())) {
                    client.close();
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(target, 2000);
                Socket[] pair = {client, upstream};
                pairs.add(pair);
                pump(pair, client, upstream);
                pump(pair, upstream, client);
            } catch (IOException e) {
                // closed, or the target refused: the member retries
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
        }, "tcp-proxy-pump");
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
    public void close() throws IOException {
        cut();
        if (server != null) {
            server.close();
        }
    }
}
