package dev.caravan.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

/**
 * The soak's fleet and its fault levers. Engines run in this JVM, each on fixed loopback ports (HTTP, KV-event PUB and
 * replay), so a restarted engine is where it was. Two gateway replicas run as child JVMs ({@link GatewayProcess}) that
 * register the engines with their KV endpoints before they listen, share a tenants file, and sync over Hazelcast:
 * replica {@code i}'s member binds 127.0.0.{i+1} and is reached only through its {@link SyncLink}.
 * Not thread-safe: the schedule drives it from one thread (the agreement probe reads only).
 */
final class SoakFleet implements AutoCloseable {

    /** Hazelcast's failure detection and split-brain merge shortened, as the replica fault ITs do. */
    static final Map<String, String> FAST_HAZELCAST = Map.of(
            "hazelcast.max.no.heartbeat.seconds", "3",
            "hazelcast.heartbeat.interval.seconds", "1",
            "hazelcast.merge.first.run.delay.seconds", "2",
            "hazelcast.merge.next.run.delay.seconds", "2");
    /** Relative difference of the replicas' fleet prefix indexes still counted as agreeing (entries keep arriving). */
    static final double PREFIX_TOLERANCE = 0.05;
    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-zA-Z_:][\\w:]*)(?:\\{([^}]*)\\})? (\\S+)$");

    private final List<SimConfig> engineConfigs = new ArrayList<>();
    private final SimEngine[] engines;
    private final GatewayProcess[] replicas = new GatewayProcess[2];
    private final SyncLink[] links = new SyncLink[2];
    private final List<String[]> kvEndpoints = new ArrayList<>();
    private final Path tenantsFile;
    private Path workersFile;
    private final String goodTenants;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    /**
     * Starts the engines, then the replicas one after the other (each member joins the ones before).
     *
     * @param engineCount engines
     * @param timeScale   the engines' simulated seconds per wall second
     * @param workDir     where the tenants file and the replicas' logs go
     */
    SoakFleet(int engineCount, double timeScale, Path workDir) {
        engines = new SimEngine[engineCount];
        try {
            tenantsFile = workDir.resolve("tenants.yaml");
            goodTenants = """
                    # the soak's tenants: alpha unlimited, beta over its own limit at the soak's rate
                    trustTenantHeader: false
                    defaultTenant:
                      requestsPerMinute: 100000
                    tenants:
                      alpha:
                        apiKeys: [ "sk-soak-alpha" ]
                      beta:
                        apiKeys: [ "sk-soak-beta" ]
                        requestsPerMinute: 30
                    """;
            Files.writeString(tenantsFile, goodTenants);
            StringBuilder registry = new StringBuilder();
            Set<Integer> taken = new java.util.HashSet<>();
            for (int i = 0; i < engineCount; i++) {
                int port = freePort(taken);
                int events = freePort(taken);
                int replay = freePort(taken);
                engineConfigs.add(SimConfig.builder().host("127.0.0.1").port(port).timeScale(timeScale)
                        .seed(1000 + i).kvEventsEndpoint("tcp://*:" + events).kvReplayEndpoint("tcp://*:" + replay)
                        .build());
                kvEndpoints.add(new String[] {"tcp://127.0.0.1:" + events, "tcp://127.0.0.1:" + replay});
                registry.append(engineUrl(i)).append(' ').append(kvEndpoints.get(i)[0]).append(' ')
                        .append(kvEndpoints.get(i)[1]).append('\n');
                startEngine(i);
            }
            workersFile = workDir.resolve("workers.txt");
            Files.writeString(workersFile, registry);
            startReplicas(workDir);
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("the soak's fleet did not start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void startReplicas(Path workDir) throws IOException {
        String cluster = "soak-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        byte[] secret = new byte[16];
        new java.security.SecureRandom().nextBytes(secret);
        int[] syncPorts = new int[2];
        List<String> members = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String host = syncHost(i);
            syncPorts[i] = ServerEventLoops.freePort(host);
            int linkPort;
            do {
                linkPort = ServerEventLoops.freePort(host);
            } while (linkPort == syncPorts[i]);
            links[i] = new SyncLink(new InetSocketAddress(host, linkPort), new InetSocketAddress(host, syncPorts[i]));
            members.add(host + ":" + linkPort);
        }
        for (int i = 0; i < 2; i++) {
            int port = ServerEventLoops.freePort("127.0.0.1");
            List<String> flags = List.of("--host", "127.0.0.1", "--port", Integer.toString(port),
                    "--prometheus-port", "-1", GatewayChild.WORKERS, workersFile.toString(),
                    "--policy", "cache_aware", "--kv-calibrate-tree", "true",
                    "--health-check-interval-secs", "1", "--health-failure-threshold", "2",
                    "--stream-idle-timeout-secs", "5", "--non-stream-attempt-timeout-secs", "10",
                    "--request-timeout-secs", "60", "--shutdown-grace-period-secs", "10",
                    "--tenants-file", tenantsFile.toString(), "--tenants-reload-interval-secs", "1",
                    "--sync", "hazelcast", "--sync-host", syncHost(i), "--sync-port", Integer.toString(syncPorts[i]),
                    "--sync-public-address", members.get(i), "--sync-members", String.join(",", members),
                    "--sync-cluster-name", cluster, "--sync-secret", HexFormat.of().formatHex(secret));
            replicas[i] = new GatewayProcess(flags, FAST_HAZELCAST, workDir.resolve("replica-" + i + ".log"), port);
            replicas[i].start();
            links[i].open();
        }
    }

    private static int freePort(Set<Integer> taken) {
        int port;
        do {
            port = ServerEventLoops.freePort("127.0.0.1");
        } while (!taken.add(port));
        return port;
    }

    private String engineUrl(int i) {
        return "http://127.0.0.1:" + engineConfigs.get(i).port();
    }

    private static String syncHost(int replica) {
        return "127.0.0." + (replica + 1);
    }

    List<URI> replicaUrls() {
        return List.of(replicas[0].baseUrl(), replicas[1].baseUrl());
    }

    int engineCount() {
        return engines.length;
    }

    String model() {
        return engineConfigs.get(0).model();
    }

    void startEngine(int i) {
        engines[i] = SimEngine.start(engineConfigs.get(i));
    }

    /** Closes the engine's server and KV sockets (connections on it are cut). */
    void killEngine(int i) {
        engines[i].close();
        engines[i] = null;
    }

    void hangEngine(int i, boolean hang) {
        engines[i].setFaults(hang ? Faults.NONE.merge(Map.of("hang", true)) : Faults.NONE);
    }

    void dropKvEvents(int i, boolean drop) {
        engines[i].setFaults(drop ? Faults.NONE.merge(Map.of("drop_kv_events", true)) : Faults.NONE);
    }

    /** Requests in flight on engine {@code i} (running and waiting). */
    int inFlight(int i) {
        return engines[i] == null ? 0 : engines[i].running() + engines[i].waiting();
    }

    void killReplica(int r) {
        replicas[r].kill();
    }

    void startReplica(int r) {
        replicas[r].start();
    }

    void partition() {
        links[0].cut();
        links[1].cut();
    }

    void heal() {
        links[0].heal();
        links[1].heal();
    }

    void writeBadTenantsFile() {
        write("tenants: { alpha: [ this does not parse\n");
    }

    void restoreTenantsFile() {
        write(goodTenants);
    }

    /** Replaces the tenants file at once (a file written in place could be read half-written, an extra failure). */
    private void write(String text) {
        try {
            Path next = tenantsFile.resolveSibling(tenantsFile.getFileName() + ".next");
            Files.writeString(next, text);
            Files.move(next, tenantsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + tenantsFile, e);
        }
    }

    /** Removes engine {@code i} from both replicas ({@code DELETE /workers/{id}}: in-flight requests finish). */
    void drainWorker(int i) {
        String url = engineUrl(i);
        for (GatewayProcess g : replicas) {
            for (JsonNode w : get(g.baseUrl(), "/workers").path("workers")) {
                if (url.equals(w.path("url").asText())) {
                    String id = URLEncoder.encode(w.path("id").asText(), StandardCharsets.UTF_8);
                    send(g.baseUrl(), HttpRequest.newBuilder(g.baseUrl().resolve("/workers/" + id)).DELETE(), 202,
                            200, 204);
                }
            }
        }
    }

    /** Registers engine {@code i} again on both replicas. */
    void addWorker(int i) {
        String body = "{\"url\":\"" + engineUrl(i) + "\",\"kv_events_endpoint\":\"" + kvEndpoints.get(i)[0]
                + "\",\"kv_replay_endpoint\":\"" + kvEndpoints.get(i)[1] + "\"}";
        for (GatewayProcess g : replicas) {
            send(g.baseUrl(), HttpRequest.newBuilder(g.baseUrl().resolve("/workers"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)),
                    202, 200, 201);
        }
    }

    /**
     * Whether both replicas are up and agree: each sees two sync members, the same healthy workers, and fleet prefix
     * indexes within {@link #PREFIX_TOLERANCE} of each other.
     */
    boolean agree() {
        try {
            Map<String, Double> a = metrics(replicas[0]);
            Map<String, Double> b = metrics(replicas[1]);
            double pa = a.getOrDefault("caravan_sync_peer_prefixes", -1.0);
            double pb = b.getOrDefault("caravan_sync_peer_prefixes", -1.0);
            return a.getOrDefault("caravan_sync_members", 0.0) == 2 && b.getOrDefault("caravan_sync_members", 0.0) == 2
                    && healthyWorkers(replicas[0]).equals(healthyWorkers(replicas[1]))
                    && Math.abs(pa - pb) <= PREFIX_TOLERANCE * Math.max(1, Math.max(pa, pb));
        } catch (RuntimeException e) {
            return false; // a replica not answering does not agree
        }
    }

    private Set<String> healthyWorkers(GatewayProcess g) {
        Set<String> out = new TreeSet<>();
        for (JsonNode w : get(g.baseUrl(), "/workers").path("workers")) {
            if (w.path("is_healthy").asBoolean()) {
                out.add(w.path("url").asText());
            }
        }
        return out;
    }

    /**
     * Replica {@code r}'s heap after a full GC (bytes, the sum of {@code jvm_memory_used_bytes{area="heap"}}) and its
     * live threads; null when it is not running.
     */
    double[] heapAfterGcAndThreads(int r) {
        GatewayProcess g = replicas[r];
        if (!g.alive()) {
            return null;
        }
        g.fullGc();
        Map<String, Double> m = metrics(g);
        return new double[] {m.getOrDefault("jvm_memory_used_bytes{area=\"heap\"}", Double.NaN),
                m.getOrDefault("jvm_threads_live_threads", Double.NaN)};
    }

    /** The sync members replica {@code r} sees, or 0 when it does not answer. */
    double members(int r) {
        try {
            return metrics(replicas[r]).getOrDefault("caravan_sync_members", 0.0);
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** A replica's failed tenants-file reloads. */
    double failedTenantReloads(int r) {
        return metrics(replicas[r]).getOrDefault("caravan_tenants_reloads_total{result=\"failed\"}", 0.0);
    }

    /**
     * A replica's /metrics as sums per metric name, and per name plus each label pair (as
     * {@code name{label="value"}}).
     */
    private Map<String, Double> metrics(GatewayProcess g) {
        String text = sendText(HttpRequest.newBuilder(g.baseUrl().resolve("/metrics")).GET());
        Map<String, Double> out = new java.util.HashMap<>();
        Matcher m = SAMPLE.matcher(text);
        while (m.find()) {
            double v = Double.parseDouble(m.group(3));
            out.merge(m.group(1), v, Double::sum);
            if (m.group(2) != null) {
                for (String label : m.group(2).split(",")) {
                    if (!label.isBlank()) {
                        out.merge(m.group(1) + "{" + label + "}", v, Double::sum);
                    }
                }
            }
        }
        return out;
    }

    private JsonNode get(URI base, String path) {
        try {
            return json.readTree(sendText(HttpRequest.newBuilder(base.resolve(path)).GET()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String sendText(HttpRequest.Builder b) {
        try {
            HttpResponse<String> r = http.send(b.timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(r.uri() + " answered " + r.statusCode() + ": " + r.body());
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void send(URI base, HttpRequest.Builder b, int... ok) {
        try {
            HttpResponse<String> r = http.send(b.timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (java.util.Arrays.stream(ok).noneMatch(s -> s == r.statusCode())) {
                throw new IllegalStateException(r.uri() + " answered " + r.statusCode() + ": " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("admin call to " + base + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Stops the replicas (SIGTERM: they drain), the links, then the engines. */
    @Override
    public void close() {
        for (GatewayProcess g : replicas) {
            if (g != null) {
                g.close();
            }
        }
        for (SyncLink l : links) {
            if (l != null) {
                l.close();
            }
        }
        for (int i = 0; i < engines.length; i++) {
            if (engines[i] != null) {
                engines[i].close();
                engines[i] = null;
            }
        }
    }
}
