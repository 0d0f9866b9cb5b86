package dev.caravan.components.podwatch;

import org.apache.camel.spi.Metadata;

/** Header names the {@code pod-watch:} consumer sets. */
public final class PodWatchConstants {

    @Metadata(label = "consumer", description = "What the exchange carries: ADDED, MODIFIED or DELETED (body: the Pod) "
            + "or SNAPSHOT (body: the complete list of Pods).", javaType = "dev.caravan.components.podwatch.PodEventType")
    public static final String EVENT_TYPE = "CaravanPodEventType";

    @Metadata(label = "consumer", description = "namespace/name of the pod (absent on SNAPSHOT).", javaType = "String")
    public static final String POD = "CaravanPod";

    @Metadata(label = "consumer", description = "The namespace the consumer watches; empty for all namespaces.",
            javaType = "String")
    public static final String NAMESPACE = "CaravanPodNamespace";

    private PodWatchConstants() {
    }
}
