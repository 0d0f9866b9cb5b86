package dev.caravan.sync;

import java.util.Map;

import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.ExecutorConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.spi.merge.PutIfAbsentMergePolicy;
import com.hazelcast.spi.properties.ClusterProperty;
import com.hazelcast.spi.properties.HazelcastProperty;

import dev.caravan.processors.responses.ResponseAffinity;

/**
 * Builds and starts the embedded Hazelcast member from {@link SyncConfig}: the cluster name, this member's address,
 * how it finds the others (a static TCP-IP list or Kubernetes discovery; multicast and auto-detection off), the
 * structures' settings, and failure-detection times fit for a gateway fleet. Hazelcast properties given as JVM system
 * properties ({@code -Dhazelcast.max.no.heartbeat.seconds=...}) win over these defaults.
 */
final class SyncMember {

    /** Shared sessions (manual): one synchronous backup, so one member's death loses no assignment. */
    static final String SESSIONS = "caravan.sessions";
    /**
     * Which worker stored which Responses API response: one synchronous backup, forgotten after a day unused and
     * bounded per member, as each replica's own {@code ResponseAffinity}.
     */
    static final String RESPONSES = "caravan.responses";
    /** Per-member in-flight load reports. */
    static final String LOADS = "caravan.loads";
    /** Decision batches. */
    static final String DECISIONS = "caravan.decisions";
    /** Snapshot pulls of the fleet prefix index. */
    static final String SNAPSHOTS = "caravan.snapshots";
    /**
     * Tenants' shared requests-per-minute buckets ({@link TakeQuotaLease}): one synchronous backup, so a member's death
     * keeps what the fleet has spent.
     */
    static final String QUOTAS = "caravan.quota-leases";
    /** Replicated map: model → bucket's length ranges, cut by the oldest member. */
    static final String BUCKETS = "caravan.buckets";
    /** The member's user-context key under which its {@link SyncNode} is found by tasks. */
    static final String NODE = "caravan.sync.node";
    /** Hazelcast's per-instance choice of its own address (read from the Config, then system properties). */
    private static final String LOCAL_ADDRESS = "hazelcast.local.localAddress";

    /** Property defaults for a gateway fleet: dead members noticed in seconds, partitions merged within a minute. */
    private static final Map<HazelcastProperty, String> DEFAULTS = Map.of(
            ClusterProperty.PHONE_HOME_ENABLED, "false",
            ClusterProperty.LOGGING_TYPE, "slf4j",
            ClusterProperty.SHUTDOWNHOOK_ENABLED, "false", // the gateway stops it after draining
            ClusterProperty.HEARTBEAT_INTERVAL_SECONDS, "1",
            ClusterProperty.MAX_NO_HEARTBEAT_SECONDS, "10",
            ClusterProperty.MERGE_FIRST_RUN_DELAY_SECONDS, "30",
            ClusterProperty.MERGE_NEXT_RUN_DELAY_SECONDS, "30",
            ClusterProperty.WAIT_SECONDS_BEFORE_JOIN, "0");

    private SyncMember() {
    }

    static Config config(SyncConfig sync, String instanceName, int maxIdleSeconds, Map<String, Object> userContext) {
        Config config = new Config();
        config.setClusterName(sync.clusterName());
        config.setInstanceName(instanceName);
        DEFAULTS.forEach((p, v) -> {
            if (System.getProperty(p.getName()) == null) {
                config.setProperty(p.getName(), v);
            }
        });
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(sync.port()).setPortAutoIncrement(false);
        if (sync.host() != null) {
            // bind and announce this address only, and connect out from it (peers see who is calling)
            config.setProperty(LOCAL_ADDRESS, sync.host());
            config.setProperty(ClusterProperty.SOCKET_BIND_ANY.getName(), "false");
            config.setProperty(ClusterProperty.SOCKET_CLIENT_BIND_ANY.getName(), "false");
        }
        if (sync.publicAddress() != null) {
            network.setPublicAddress(sync.publicAddress());
        }
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        if (sync.kubernetes()) {
            join.getKubernetesConfig().setEnabled(true).setProperty("service-name", sync.kubernetesService());
            if (sync.kubernetesNamespace() != null) {
                join.getKubernetesConfig().setProperty("namespace", sync.kubernetesNamespace());
            }
        } else {
            join.getTcpIpConfig().setEnabled(true).setMembers(sync.members());
        }
        // sessions idle fleet-wide for manual's --max-idle-secs expire (replicas touch the keys they route)
        config.addMapConfig(new MapConfig(SESSIONS).setBackupCount(1).setMaxIdleSeconds(Math.max(0, maxIdleSeconds))
                .setMergePolicyConfig(new MergePolicyConfig(PutIfAbsentMergePolicy.class.getName(), 100)));
        config.addMapConfig(new MapConfig(RESPONSES).setBackupCount(1)
                .setMaxIdleSeconds((int) ResponseAffinity.DEFAULT_TTL.toSeconds())
                .setEvictionConfig(new EvictionConfig().setEvictionPolicy(EvictionPolicy.LRU)
                        .setMaxSizePolicy(MaxSizePolicy.PER_NODE).setSize(ResponseAffinity.DEFAULT_MAX_ENTRIES)));
        config.addMapConfig(new MapConfig(QUOTAS).setBackupCount(1));
        config.addExecutorConfig(new ExecutorConfig(SNAPSHOTS).setPoolSize(2));
        config.getUserContext().putAll(userContext);
        return config;
    }

    static HazelcastInstance start(Config config) {
        return Hazelcast.newHazelcastInstance(config);
    }
}
