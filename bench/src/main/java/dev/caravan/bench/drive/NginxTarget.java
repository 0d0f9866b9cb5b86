package dev.caravan.bench.drive;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import dev.caravan.sim.SimConfig;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * nginx in front of a fresh simulated fleet, the peer rows of the benchmark: a temporary {@code nginx.conf} (one
 * {@code upstream} with the engines, round robin, {@code least_conn} or {@code hash $http_x_smg_routing_key consistent},
 * a shared {@code zone} so every worker process sees the same counters, upstream keep-alive, response buffering off so
 * streamed tokens pass as they come) and nginx run in the foreground on a free loopback port, stopped on close.
 */
public final class NginxTarget extends SimFleetTarget {

    private static final Logger LOG = LoggerFactory.getLogger(NginxTarget.class);

    private final Path dir;
    private final Process process;
    private final int port;
    private final Map<String, String> settings = new LinkedHashMap<>();

    public NginxTarget(Path nginx, String mode, int engines, SimConfig engine) {
        super(engines, engine);
        try {
            dir = Files.createTempDirectory("caravan-bench-nginx");
            port = freePort();
            String directive = switch (mode) {
                case "round_robin" -> "";
                case "least_conn" -> "least_conn;";
                case "hash" -> "hash $http_x_smg_routing_key consistent;";
                default -> throw new IllegalArgumentException("nginx mode must be round_robin, least_conn or hash, "
                        + "was " + mode);
            };
            settings.put("upstream", directive.isEmpty() ? "(round robin)" : directive);
            Files.writeString(dir.resolve("nginx.conf"), config(directive), StandardCharsets.UTF_8);
            process = new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c",
                    dir.resolve("nginx.conf").toString(), "-e", dir.resolve("error.log").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
            awaitListening();
        } catch (IOException e) {
            fleet.close();
            throw new UncheckedIOException("nginx did not start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fleet.close();
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

    private String config(String directive) {
        StringBuilder servers = new StringBuilder();
        for (String url : fleet.urls()) {
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
                + "  upstream engines {\n    zone engines 1m;\n"
                + (directive.isEmpty() ? "" : "    " + directive + "\n")
                + servers + "    keepalive 1024;\n  }\n"
                + "  server {\n    listen 127.0.0.1:" + port + ";\n"
                + "    location / {\n      proxy_pass http://engines;\n      proxy_http_version 1.1;\n"
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
        process.destroyForcibly();
        throw new IOException("nginx did not listen on 127.0.0.1:" + port + " within 15 s");
    }

    @Override
    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port);
    }

    @Override
    public Map<String, String> settings() {
        return settings;
    }

    @Override
    protected void closeBalancer() {
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
