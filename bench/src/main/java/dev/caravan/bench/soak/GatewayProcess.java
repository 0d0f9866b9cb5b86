package dev.caravan.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One gateway replica as a child JVM ({@link GatewayChild}) on a fixed port, so a replica killed and started again is
 * found where it was. Started with this JVM's class path; its output is appended to a log file, which keeps every
 * start. {@link #kill()} is SIGKILL (a crash: connections reset, the sync member vanishes without leaving),
 * {@link #close()} SIGTERM (a drain).
 */
final class GatewayProcess implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 300_000;

    private final List<String> flags;
    private final Map<String, String> systemProperties;
    private final Path log;
    private final int port;
    private Process process;

    /**
     * @param flags            {@code ./caravan run} flag/value pairs, {@code --port} among them
     * @param systemProperties -D settings of the child (Hazelcast's failure detection)
     * @param log              the child's output
     * @param port             the port {@code flags} names
     */
    GatewayProcess(List<String> flags, Map<String, String> systemProperties, Path log, int port) {
        this.flags = List.copyOf(flags);
        this.systemProperties = Map.copyOf(systemProperties);
        this.log = log;
        this.port = port;
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port);
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Starts the child and waits until its server listens. */
    GatewayProcess start() {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx384m");
        cmd.add("-Dlog4j2.configurationFile=caravan-bench-log4j2.properties");
        systemProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(GatewayChild.class.getName());
        cmd.addAll(flags);
        try {
            // appended: the log keeps every start of the replica; only this start's lines are searched for READY
            int from = Files.exists(log) ? (int) Files.size(log) : 0;
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
            while (!since(from).contains(GatewayChild.READY + port)) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("gateway replica on port " + port + " exited with "
                            + process.exitValue() + " before listening; see " + log);
                }
                if (System.currentTimeMillis() > deadline) {
                    kill();
                    throw new IllegalStateException("gateway replica on port " + port + " did not listen within "
                            + START_TIMEOUT_MS / 1000 + " s; see " + log);
                }
                Thread.sleep(100);
            }
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a gateway replica: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
            throw new IllegalStateException("interrupted while a gateway replica started", e);
        }
    }

    /** The log's text from byte {@code from} on. */
    private String since(int from) throws IOException {
        byte[] all = Files.readAllBytes(log);
        return new String(all, Math.min(from, all.length), Math.max(0, all.length - from), StandardCharsets.UTF_8);
    }

    /** SIGKILL, then waits for the exit. */
    void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(30);
        }
    }

    /** A full GC in the child ({@code jcmd <pid> GC.run}), so the heap it reports next is what survives. */
    void fullGc() {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(pid()), "GC.run").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("jcmd GC.run failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM (the gateway drains), SIGKILL after 30 s. */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!waitFor(30)) {
                kill();
            }
        }
    }

    private boolean waitFor(long seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
