package dev.caravan.bench.synccost;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.caravan.bench.drive.SyncMetricsReader;

/**
 * N gateway replicas as processes of the app jar ({@code java -jar caravan.jar run}), as the process benchmarks start
 * them: on 127.0.0.1, each on a port the kernel picks ({@code --port 0}, read back from the start-up log line), in
 * front of the same engines. With sync they form one Hazelcast cluster on loopback with a static member list (their
 * ports are chosen up front, below the kernel's ephemeral range so no outgoing connection takes one meanwhile), a
 * cluster name and a secret of this fleet only; the first replica starts alone, the others once it answers (members
 * starting at once may form clusters of their own). {@link #close()} sends SIGTERM to every one, SIGKILL after 30 s.
 */
final class GatewayProcesses implements AutoCloseable {

    private static final Pattern STARTED = Pattern.compile("Caravan gateway started on [^:\\s]+:(\\d+)");
    private static final long START_TIMEOUT_MS = 300_000;
    private static final long CLUSTER_TIMEOUT_MS = 180_000;

    private final List<Process> processes = new ArrayList<>();
    private final List<URI> urls = new ArrayList<>();

    private GatewayProcesses() {
    }

    /**
     * Starts the fleet and returns once every replica listens and, with sync, every one counts all members.
     *
     * @param javaOptions JVM options of every replica (e.g. {@code -Xmx384m}, a flight recording)
     * @param logs        folder of the replicas' logs ({@code <label>-<i>.log})
     */
    static GatewayProcesses start(Path jar, List<String> javaOptions, int replicas, boolean sync, List<String> engines,
                                  Path logs, String label, RandomGenerator random) {
        GatewayProcesses fleet = new GatewayProcesses();
        try {
            List<String> members = new ArrayList<>();
            List<Integer> syncPorts = new ArrayList<>();
            for (int i = 0; sync && i < replicas; i++) {
                int port = portOutsideEphemeralRange(syncPorts, random);
                syncPorts.add(port);
                members.add("127.0.0.1:" + port);
            }
            String cluster = "sync-cost-" + ProcessHandle.current().pid() + "-" + label;
            byte[] secret = new byte[16];
            new SecureRandom().nextBytes(secret);
            List<Path> logFiles = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                List<String> cmd = new ArrayList<>();
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                for (String o : javaOptions) {
                    cmd.add(o.replace("{replica}", label + "-" + i));
                }
                cmd.addAll(List.of("-jar", jar.toString(), "run", "--host", "127.0.0.1", "--port", "0",
                        "--log-level", "info", "--prometheus-port", "-1", "--policy", "cache_aware", "--worker-urls"));
                cmd.addAll(engines);
                if (sync) {
                    cmd.addAll(List.of("--sync", "hazelcast", "--sync-host", "127.0.0.1", "--sync-port",
                            Integer.toString(syncPorts.get(i)), "--sync-members", String.join(",", members),
                            "--sync-cluster-name", cluster, "--sync-secret", HexFormat.of().formatHex(secret)));
                }
                Path log = logs.resolve(label + "-" + i + ".log");
                logFiles.add(log);
                fleet.processes.add(new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start());
                if (i == 0) {
                    fleet.urls.add(awaitPort(fleet.processes.get(0), log));
                }
            }
            for (int i = 1; i < replicas; i++) {
                fleet.urls.add(awaitPort(fleet.processes.get(i), logFiles.get(i)));
            }
            if (sync) {
                fleet.awaitMembers(replicas);
            }
            return fleet;
        } catch (IOException e) {
            fleet.close();
            throw new UncheckedIOException("cannot start a gateway replica: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fleet.close();
            throw e;
        }
    }

    List<URI> urls() {
        return List.copyOf(urls);
    }

    List<Long> pids() {
        return processes.stream().map(Process::pid).toList();
    }

    /** The port of a {@code Caravan gateway started on host:port} line in a log, or -1 when there is none. */
    static int startedPort(String log) {
        Matcher m = STARTED.matcher(log);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static URI awaitPort(Process p, Path log) {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        try {
            while (true) {
                int port = startedPort(Files.readString(log, StandardCharsets.UTF_8));
                if (port > 0) {
                    return URI.create("http://127.0.0.1:" + port);
                }
                if (!p.isAlive()) {
                    throw new IllegalStateException("a gateway replica exited with " + p.exitValue()
                            + " before listening; see " + log);
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("a gateway replica did not listen within "
                            + START_TIMEOUT_MS / 1000 + " s; see " + log);
                }
                Thread.sleep(200);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a gateway replica started", e);
        }
    }

    private void awaitMembers(int replicas) {
        long deadline = System.currentTimeMillis() + CLUSTER_TIMEOUT_MS;
        String members = SyncMetricsReader.PREFIX + "members";
        while (true) {
            List<Map<String, Double>> seen = SyncMetricsReader.read(urls, List.of(members));
            if (seen.stream().allMatch(m -> m.getOrDefault(members, 0.0) == replicas)) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the " + replicas + " replicas did not form one sync cluster within "
                        + CLUSTER_TIMEOUT_MS / 1000 + " s (members seen: " + seen + ")");
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the sync cluster formed", e);
            }
        }
    }

    /**
     * A free port below Linux's ephemeral range (32768 and up): the members' ports are chosen before the first replica
     * starts, and the kernel never hands out a source port below that range meanwhile.
     */
    private static int portOutsideEphemeralRange(List<Integer> taken, RandomGenerator random) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            if (!taken.contains(port) && bindable(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port in 20000-32000 on 127.0.0.1");
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGTERM to every replica (they drain), then SIGKILL to those still running after 30 s. */
    @Override
    public void close() {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
