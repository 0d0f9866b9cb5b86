package dev.caravan.sim;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A plain socket HTTP/1.1 client for tests that need to see or cause connection-level behaviour (the server closing
 * mid-stream, the client walking away).
 */
public final class RawHttp implements AutoCloseable {

    private final Socket socket;

    public RawHttp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
    }

    /** Sends a POST with a JSON body (connection: close). */
    public RawHttp post(String path, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return this;
    }

    /** Everything the server sends until it closes the connection. */
    public String readToClose() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] chunk = new byte[8192];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                buf.write(chunk, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new IOException("server did not close within 10 s; got: " + buf.toString(StandardCharsets.UTF_8), e);
        } catch (IOException e) {
            // connection reset: return what arrived
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
