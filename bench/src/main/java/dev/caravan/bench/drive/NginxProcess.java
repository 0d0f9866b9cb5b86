package dev.caravan.bench.drive;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * nginx run in the foreground on a free loopback port as a reverse proxy over one {@code upstream}: a temporary
 * {@code nginx.conf} (a shared {@code zone} so every worker process sees the same counters, upstream keep-alive,
 * response buffering off so streamed tokens pass as they come), stopped and its directory deleted on close. Used for
 * the nginx peer rows (upstream = the engines) and as the optional front of N gateway replicas (upstream = the
 * replicas).
 */
public final class NginxProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NginxProcess.class);

    private final Path dir;
    private final Process process;
    private final int port;

    /**
     * Writes the configuration and starts nginx; returns once it accepts connections.
     *
     * @param nginx     the executable
     * @param directive the balancing directive ({@code least_conn;}), empty for round robin
     * @param servers   the upstream's base URLs
     * @throws IOException when nginx exits or does not listen within 15 s
     */
    public NginxProcess(Path nginx, String directive, List<String> servers) throws IOException {
        dir = Files.createTempDirectory("caravan-bench-nginx");
        port = freePort();
        Files.writeString(dir.resolve("nginx.conf"), config(directive, servers), StandardCharsets.UTF_8);
        process = new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c",
                dir.resolve("nginx.conf").toString(), "-e", dir.resolve("error.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
        try {
            awaitListening();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The nginx executable on the PATH (or in /usr/sbin), if any. */
    public static Optional<Path> find() {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin"
                + File.pathSeparator + "/usr/local/sbin";
        for (String d : path.split(File.pathSeparator)) {
            Path p = Path.of(d.isEmpty() ? "." : d, "nginx");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port);
    }

    private String config(String directive, List<String> urls) {
        StringBuilder servers = new StringBuilder();
        for (String url : urls) {
            URI u = URI.create(url);
            servers.append("    server ").append(u.getHost()).append(':').append(u.getPort()).append(" max_fails=0;\n");
        }
        String d = dir.toString();
        return "daemon off;\nworker_processes 2;\npid " + d + "/nginx.pid;\n"
                + "events { worker_connections 16384; }\n"
                + "http {\n  access_log off;\n"
                + "  client_body_temp_path " + d + "/body; proxy_temp_path " + d + "/proxy;\n"
                + "  fastcgi_temp_path " + d + "/fastcgi; uwsgi_temp_path " + d + "/uwsgi; scgi_temp_path " + d
                + "/scgi;\n"
                + "  client_max_body_size 256m;\n  client_body_buffer_size 2m;\n"
                + "  upstream backends {\n    zone backends 1m;\n"
                + (directive.isEmpty() ? "" : "    " + directive + "\n")
                + servers + "    keepalive 1024;\n  }\n"
                + "  server {\n    listen 127.0.0.1:" + port + ";\n"
                + "    location / {\n      proxy_pass http://backends;\n      proxy_http_version 1.1;\n"
                + "      proxy_set_header Connection \"\";\n      proxy_buffering off;\n"
                + "      proxy_read_timeout 3600s;\n      proxy_send_timeout 3600s;\n    }\n  }\n}\n";
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("nginx exited with " + process.exitValue() + ": "
                        + Files.readString(dir.resolve("nginx.out")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
        throw new IOException("nginx did not listen on 127.0.0.1:" + port + " within 15 s");
    }

    /** Stops nginx (SIGTERM, then SIGKILL after 10 s) and deletes its directory. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", dir, e.toString());
        }
    }
}
