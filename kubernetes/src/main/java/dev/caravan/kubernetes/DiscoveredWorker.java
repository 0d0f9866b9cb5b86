package dev.caravan.kubernetes;

import java.util.Map;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRole;

/**
 * The worker a ready pod stands for. Two specs are equal exactly when they would build the same worker, which is how
 * the reconciler tells a no-op update (status heartbeat, unrelated label) from a change that needs re-registration.
 *
 * @param podKey           the pod's UID (or {@code namespace/name} when the API server sent none)
 * @param namespace        pod namespace
 * @param podName          pod name
 * @param url              {@code http://podIP:port}
 * @param role             from the selector the pod matched
 * @param modelId          from the model annotation, or null
 * @param bootstrapPort    prefill pods: from the bootstrap-port annotation, or null
 * @param kvEventsEndpoint ZeroMQ PUB endpoint with the pod IP filled in, or null
 * @param kvReplayEndpoint ZeroMQ replay endpoint with the pod IP filled in, or null
 */
public record DiscoveredWorker(String podKey, String namespace, String podName, String url, WorkerRole role,
                               String modelId, Integer bootstrapPort, String kvEventsEndpoint,
                               String kvReplayEndpoint) {

    /** Worker label naming the pod ({@code namespace/name}), shown by {@code GET /workers}. */
    public static final String POD_LABEL = "k8s.pod";
    /** Worker label marking discovered workers. */
    public static final String SOURCE_LABEL = "source";
    /** Value of {@link #SOURCE_LABEL}. */
    public static final String SOURCE_KUBERNETES = "kubernetes";

    /** A new registry worker for this pod. */
    public Worker toWorker() {
        return Worker.builder(url)
                .role(role)
                .modelId(modelId)
                .bootstrapPort(bootstrapPort)
                .kvEventsEndpoint(kvEventsEndpoint)
                .kvReplayEndpoint(kvReplayEndpoint)
                .labels(Map.of(SOURCE_LABEL, SOURCE_KUBERNETES, POD_LABEL, pod()))
                .build();
    }

    /** {@code namespace/name}, for logs. */
    public String pod() {
        return namespace + "/" + podName;
    }
}
