package dev.caravan.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A streaming request over a plain socket, so a test can read part of a response and then hang up exactly like a
 * client that goes away (the JDK client may keep reading or pool the connection instead).
 */
public final class RawHttpStream implements AutoCloseable {

    private final Socket socket;
    private final BufferedReader in;

    private RawHttpStream(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Opens a connection and sends a JSON POST, with extra headers as name, value pairs. */
    public static RawHttpStream post(int port, String path, String json, String... headers) {
        StringBuilder extra = new StringBuilder();
        for (int h = 0; h + 1 < headers.length; h += 2) {
            extra.append(headers[h]).append(": ").append(headers[h + 1]).append("\r\n");
        }
        try {
            Socket s = new Socket();
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(30_000);
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n" + extra + "\r\n";
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            return new RawHttpStream(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads until a line starting with {@code prefix} (e.g. {@code "data:"}) and returns it. */
    public String readLineStartingWith(String prefix) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            throw new IllegalStateException("stream ended before a line starting with " + prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Hangs up. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
