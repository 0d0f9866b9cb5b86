package dev.caravan.sync;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The replica-sync settings, from the flag table's {@code Replica sync} rows (each row checked its own value; this
 * record checks the rule that spans them).
 *
 * @param members             static member list ({@code host:port}), empty with Kubernetes discovery
 * @param port                this member's port, 0 for a free one
 * @param host                the address to bind and announce, or null for Hazelcast's choice
 * @param publicAddress       {@code host:port} peers dial instead, or null
 * @param kubernetes          Hazelcast's Kubernetes discovery instead of the static list
 * @param kubernetesNamespace namespace of the discovery service, or null for the pod's own
 * @param kubernetesService   the headless service whose endpoints are the replicas
 * @param clusterName         members join only their own cluster name
 * @param secret              the key of shared hashes, or null (then keyed by the cluster name)
 */
public record SyncConfig(List<String> members, int port, String host, String publicAddress, boolean kubernetes, String kubernetesNamespace,
        String kubernetesService, String clusterName, String secret) {

    public SyncConfig {
        members = List.copyOf(members);
        if (!kubernetes && members.isEmpty()) {
            throw new IllegalArgumentException(CoreFlags.SYNC_MODE.flag() + " " + CoreFlags.SYNC_HAZELCAST
                    + " needs " + CoreFlags.SYNC_MEMBERS.flag() + " host:port,... or "
                    + CoreFlags.SYNC_KUBERNETES.flag() + " (multicast is never used)");
        }
        for (String m : members) {
            if (m.isBlank() || m.contains("/")) {
                throw new IllegalArgumentException(CoreFlags.SYNC_MEMBERS.flag() + " takes host:port entries, was '"
                        + m + "'");
            }
        }
        host = blankToNull(host);
        publicAddress = blankToNull(publicAddress);
        kubernetesNamespace = blankToNull(kubernetesNamespace);
        secret = blankToNull(secret);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** The settings of a validated configuration. */
    public static SyncConfig from(GatewayConfig config) {
        return new SyncConfig(config.getList(CoreFlags.SYNC_MEMBERS), config.getInt(CoreFlags.SYNC_PORT),
                config.get(CoreFlags.SYNC_HOST), config.get(CoreFlags.SYNC_PUBLIC_ADDRESS),
                config.getBoolean(CoreFlags.SYNC_KUBERNETES),
                config.get(CoreFlags.SYNC_KUBERNETES_NAMESPACE), config.get(CoreFlags.SYNC_KUBERNETES_SERVICE),
                config.get(CoreFlags.SYNC_CLUSTER_NAME), config.get(CoreFlags.SYNC_SECRET));
    }

    /** True when no secret was given: the hashes are keyed by the cluster name only. */
    public boolean keyedByClusterName() {
        return secret == null;
    }

    /** The key of every shared hash (prefix boundaries, routing keys). */
    public byte[] hashKey() {
        return (secret != null ? secret : "caravan-sync:" + clusterName).getBytes(StandardCharsets.UTF_8);
    }
}
