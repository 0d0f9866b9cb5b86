package dev.caravan.sync;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The replica-sync settings, from the flag table's {@code Replica sync} rows (each row checked its own value; this
 * record checks the rules that span them: a member list or Kubernetes discovery, and a secret unless the member binds a
 * loopback address or the operator allows it).
 *
 * @param members             static member list ({@code host:port}), empty with Kubernetes discovery
 * @param port                this member's port, 0 for a free one
 * @param host                the address to bind and announce, or null for Hazelcast's choice
 * @param publicAddress       {@code host:port} peers dial instead, or null
 * @param kubernetes          Hazelcast's Kubernetes discovery instead of the static list
 * @param kubernetesNamespace namespace of the discovery service, or null for the pod's own
 * @param kubernetesService   the headless service whose endpoints are the replicas
 * @param clusterName         members join only their own cluster name
 * @param secret              the key of shared hashes, or null (then keyed by the cluster name; allowed only on a
 *                            loopback {@code host} or with {@code allowNoSecret})
 * @param allowNoSecret       {@code --sync-allow-no-secret}: no secret on a non-loopback address is the operator's choice
 */
public record SyncConfig(List<String> members, int port, String host, String publicAddress, boolean kubernetes, String kubernetesNamespace,
        String kubernetesService, String clusterName, String secret, boolean allowNoSecret) {

    public SyncConfig {
        members = List.copyOf(members);
        if (!kubernetes && members.isEmpty()) {
            throw new IllegalArgumentException(CoreFlags.SYNC_MODE.flag() + " " + CoreFlags.SYNC_HAZELCAST
                    + " needs " + SyncFeature.SYNC_MEMBERS.flag() + " host:port,... or "
                    + SyncFeature.SYNC_KUBERNETES.flag() + " (multicast is never used)");
        }
        for (String m : members) {
            if (m.isBlank() || m.contains("/")) {
                throw new IllegalArgumentException(SyncFeature.SYNC_MEMBERS.flag() + " takes host:port entries, was '"
                        + m + "'");
            }
        }
        host = blankToNull(host);
        publicAddress = blankToNull(publicAddress);
        kubernetesNamespace = blankToNull(kubernetesNamespace);
        secret = blankToNull(secret);
        if (secret == null && !allowNoSecret && !loopback(host)) {
            throw new IllegalArgumentException(CoreFlags.SYNC_MODE.flag() + " " + CoreFlags.SYNC_HAZELCAST
                    + " binds " + (host == null ? "every interface (" + SyncFeature.SYNC_HOST.flag() + " unset)"
                            : SyncFeature.SYNC_HOST.flag() + " " + host)
                    + " without " + SyncFeature.SYNC_SECRET.flag() + ", so anyone who reaches the sync port can "
                    + "confirm a guessed prompt: set " + SyncFeature.SYNC_SECRET.flag() + " on every replica, a "
                    + "loopback " + SyncFeature.SYNC_HOST.flag() + ", or " + SyncFeature.SYNC_ALLOW_NO_SECRET.flag());
        }
    }

    /** Whether {@code host} is a loopback address (a name is resolved; one that does not resolve is not). */
    private static boolean loopback(String host) {
        if (host == null) {
            return false;
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** The settings of a validated configuration. */
    public static SyncConfig from(GatewayConfig config) {
        return new SyncConfig(config.getList(SyncFeature.SYNC_MEMBERS), config.getInt(SyncFeature.SYNC_PORT),
                config.get(SyncFeature.SYNC_HOST), config.get(SyncFeature.SYNC_PUBLIC_ADDRESS),
                config.getBoolean(SyncFeature.SYNC_KUBERNETES),
                config.get(SyncFeature.SYNC_KUBERNETES_NAMESPACE), config.get(SyncFeature.SYNC_KUBERNETES_SERVICE),
                config.get(SyncFeature.SYNC_CLUSTER_NAME), config.get(SyncFeature.SYNC_SECRET),
                config.getBoolean(SyncFeature.SYNC_ALLOW_NO_SECRET));
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
