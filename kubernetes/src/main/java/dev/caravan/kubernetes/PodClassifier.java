package dev.caravan.kubernetes;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;

import dev.caravan.policies.WorkerRole;

/**
 * Decides whether a pod is a worker, from the pod object alone (pure function, thread-safe).
 *
 * <p>"Ready, not merely up": a pod counts only when it matches a selector, has no deletion timestamp, its phase is
 * {@code Running}, its {@code Ready} condition is {@code True} (the kubelet's readiness probe passed, i.e. the engine has
 * loaded its weights and allocated its KV cache) and it has an IP. The checks run in that order, so the reported reason
 * is the most fundamental one. The worker URL is {@code http://podIP:port}; IPv6 addresses are bracketed.
 *
 * <p>Annotations: the model id is taken verbatim. A prefill pod's bootstrap port must be an integer in [1,65535]. A
 * KV-event endpoint may be a bare port ({@code 5557}) or a {@code tcp://host:port} endpoint; a wildcard host
 * ({@code *}, {@code 0.0.0.0}, {@code [::]}) — which is what the engine's own {@code --kv-events-config} binds and what
 * a pod template can state without knowing its IP — is replaced by the pod IP. A malformed value makes the pod
 * ineligible ({@link DeregistrationReason#INVALID_ANNOTATION}) rather than a silently half-configured worker.
 */
public final class PodClassifier {

    private final DiscoveryConfig config;

    public PodClassifier(DiscoveryConfig config) {
        this.config = config;
    }

    public DiscoveryConfig config() {
        return config;
    }

    /** The tracking key of a pod: its UID, or {@code namespace/name} when it has none. */
    public static String keyOf(Pod pod) {
        ObjectMeta m = pod.getMetadata();
        String uid = m == null ? null : m.getUid();
        if (uid != null && !uid.isBlank()) {
            return uid;
        }
        return m == null ? "?" : m.getNamespace() + "/" + m.getName();
    }

    public PodVerdict classify(Pod pod) {
        ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
        Optional<WorkerRole> role = config.roleFor(meta.getLabels());
        if (role.isEmpty()) {
            return new PodVerdict.Ineligible(DeregistrationReason.SELECTOR_MISMATCH, "labels " + meta.getLabels());
        }
        if (meta.getDeletionTimestamp() != null) {
            return new PodVerdict.Ineligible(DeregistrationReason.TERMINATING,
                    "deletion timestamp " + meta.getDeletionTimestamp());
        }
        PodStatus status = pod.getStatus();
        String phase = status == null ? null : status.getPhase();
        if (!"Running".equals(phase)) {
            return new PodVerdict.Ineligible(DeregistrationReason.NOT_RUNNING, "phase " + phase);
        }
        if (!isReady(status.getConditions())) {
            return new PodVerdict.Ineligible(DeregistrationReason.NOT_READY, "condition Ready is not True");
        }
        String ip = status.getPodIP();
        if (ip == null || ip.isBlank()) {
            return new PodVerdict.Ineligible(DeregistrationReason.NO_POD_IP, "no pod IP");
        }
        String host = ip.contains(":") ? "[" + ip + "]" : ip;
        Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        Integer bootstrapPort = null;
        String kvEvents;
        String kvReplay;
        try {
            if (role.get() == WorkerRole.PREFILL) {
                bootstrapPort = port(config.bootstrapPortAnnotation(), annotations.get(config.bootstrapPortAnnotation()));
            }
            kvEvents = endpoint(config.kvEventsAnnotation(), annotations.get(config.kvEventsAnnotation()), host);
            kvReplay = endpoint(config.kvReplayAnnotation(), annotations.get(config.kvReplayAnnotation()), host);
        } catch (IllegalArgumentException e) {
            return new PodVerdict.Ineligible(DeregistrationReason.INVALID_ANNOTATION, e.getMessage());
        }
        String model = annotations.get(config.modelAnnotation());
        return new PodVerdict.Eligible(new DiscoveredWorker(keyOf(pod), meta.getNamespace(), meta.getName(),
                "http://" + host + ":" + config.port(), role.get(), model, bootstrapPort, kvEvents, kvReplay));
    }

    private static boolean isReady(List<PodCondition> conditions) {
        if (conditions == null) {
            return false;
        }
        for (PodCondition c : conditions) {
            if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
                return true;
            }
        }
        return false;
    }

    private static Integer port(String annotation, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            int p = Integer.parseInt(value.trim());
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(annotation + " must be a port in [1,65535], was '" + value + "'");
    }

    /** Resolves a KV-event endpoint annotation against the pod's host; null when absent. */
    static String endpoint(String annotation, String value, String host) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            return "tcp://" + host + ":" + port(annotation, v);
        }
        if (!v.startsWith("tcp://")) {
            throw new IllegalArgumentException(annotation + " must be a port or tcp://host:port, was '" + value + "'");
        }
        String authority = v.substring("tcp://".length());
        int colon = authority.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(annotation + " must be a port or tcp://host:port, was '" + value + "'");
        }
        String h = authority.substring(0, colon);
        Integer p = port(annotation, authority.substring(colon + 1));
        if (p == null) {
            throw new IllegalArgumentException(annotation + " must be a port or tcp://host:port, was '" + value + "'");
        }
        boolean wildcard = h.equals("*") || h.equals("0.0.0.0") || h.equals("[::]") || h.equals("::");
        return "tcp://" + (wildcard ? host : h) + ":" + p;
    }
}
