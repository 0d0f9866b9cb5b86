package dev.caravan.it.replica;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.hazelcast.core.HazelcastInstance;

import dev.caravan.it.GatewayHarness;
import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.sync.SyncFeature;

/**
 * N gateway replicas in this JVM whose sync members (Hazelcast, loopback, concrete ephemeral ports chosen up front so
 * each lists all) form one fleet, over the same engines. Replicas can be stopped and started again on their port (a
 * rolling restart, a late join) or killed ({@link #kill}: the member terminates without leaving, the gateway stops).
 */
public final class SyncFleet implements AutoCloseable {

    /** The secret every replica keys its hashes with (tests compute hashes with it too). */
    public static final String SECRET = "it-secret";

    private final List<String> workers;
    private final List<String> extra;
    private final int[] syncPorts;
    private final String cluster = "it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    private final GatewayHarness[] replicas;
    private java.util.function.BiFunction<Integer, GatewayConfig, GatewayConfig> adjust = (i, c) -> c;

    /**
     * @param replicas how many
     * @param workers  engine URLs every replica registers
     * @param extra    more flag/value pairs for every replica (e.g. the policy)
     */
    public SyncFleet(int replicas, List<String> workers, String... extra) {
        this.workers = List.copyOf(workers);
        this.extra = List.of(extra);
        this.syncPorts = new int[replicas];
        this.replicas = new GatewayHarness[replicas];
        for (int i = 0; i < replicas; i++) {
            syncPorts[i] = portOutsideEphemeralRange(java.util.Arrays.copyOf(syncPorts, i));
        }
    }

    /**
     * A free port below Linux's ephemeral range (32768 and up). The members' ports are chosen before the first replica
     * starts and bound as each one starts; a port the kernel hands out (bind to 0) can meanwhile become the source port
     * of a member's own outgoing connection, and the next replica then cannot bind it (a flake seen in the full suite).
     * The kernel never picks a source port below its ephemeral range.
     */
    private static int portOutsideEphemeralRange(int[] taken) {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            if (java.util.Arrays.stream(taken).noneMatch(t -> t == port) && bindable(port)) {
                return port;
            }
        }
        return ServerEventLoops.freePort("127.0.0.1");
    }

    private static boolean bindable(int port) {
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
            s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Changes each replica's configuration before it starts (e.g. addresses behind proxies). */
    public SyncFleet adjust(java.util.function.BiFunction<Integer, GatewayConfig, GatewayConfig> adjustment) {
        this.adjust = adjustment;
        return this;
    }

    public int syncPort(int i) {
        return syncPorts[i];
    }

    public String cluster() {
        return cluster;
    }

    public List<String> members() {
        List<String> out = new ArrayList<>();
        for (int p : syncPorts) {
            out.add("127.0.0.1:" + p);
        }
        return out;
    }

    public GatewayConfig config(int i) {
        GatewayConfig c = GatewayHarness.config(workers)
                .with(CoreFlags.SYNC_MODE, CoreFlags.SYNC_HAZELCAST)
                .with(SyncFeature.SYNC_HOST, "127.0.0.1")
                .with(SyncFeature.SYNC_PORT, Integer.toString(syncPorts[i]))
                .with(SyncFeature.SYNC_MEMBERS, String.join(",", members()))
                .with(SyncFeature.SYNC_CLUSTER_NAME, cluster)
                .with(SyncFeature.SYNC_SECRET, SECRET);
        for (int k = 0; k + 1 < extra.size(); k += 2) {
            c = c.with(CaravanFlags.byFlag(extra.get(k)).orElseThrow(), extra.get(k + 1));
        }
        return adjust.apply(i, c);
    }

    /** Starts every replica, one after the other (each joins the ones before). */
    public SyncFleet start() {
        for (int i = 0; i < replicas.length; i++) {
            start(i);
        }
        return this;
    }

    public GatewayHarness start(int i) {
        replicas[i] = GatewayHarness.start(config(i));
        return replicas[i];
    }

    public GatewayHarness replica(int i) {
        return replicas[i];
    }

    public int size() {
        return replicas.length;
    }

    public static HazelcastInstance member(GatewayHarness replica) {
        return (HazelcastInstance) replica.context().getRegistry().lookupByName("caravanHazelcast");
    }

    /**
     * The replica whose member is the cluster's oldest. Usually the first started, but not always: under load members
     * can form apart and merge, and the merged cluster's oldest is then the other side's.
     */
    public int oldest() {
        var first = member(replicas[0]).getCluster().getMembers().iterator().next();
        for (int i = 0; i < replicas.length; i++) {
            if (replicas[i] != null && member(replicas[i]).getCluster().getLocalMember().getUuid()
                    .equals(first.getUuid())) {
                return i;
            }
        }
        throw new IllegalStateException("the oldest member " + first + " is none of this fleet's replicas");
    }

    /** Stops a replica gracefully (its member leaves the cluster). */
    public void stop(int i) {
        if (replicas[i] != null) {
            replicas[i].close();
            replicas[i] = null;
        }
    }

    /** Kills a replica: its member terminates without leaving (peers notice the broken connections), then it stops. */
    public void kill(int i) {
        member(replicas[i]).getLifecycleService().terminate();
        stop(i);
    }

    @Override
    public void close() {
        for (int i = replicas.length - 1; i >= 0; i--) {
            stop(i);
        }
    }

    /** A sample of a Prometheus metric on a replica's /metrics, e.g. {@code caravan_sync_lag_seconds} with labels. */
    public static double metric(GatewayHarness replica, String name, String labels) {
        HttpResponse<String> r = replica.client().get("/metrics");
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{([^}]*)\\})? (\\S+)$").matcher(r.body());
        double sum = 0;
        boolean found = false;
        while (m.find()) {
            if ((m.group(1) == null ? "" : m.group(1)).contains(labels)) {
                sum += Double.parseDouble(m.group(2));
                found = true;
            }
        }
        return found ? sum : Double.NaN;
    }
}
