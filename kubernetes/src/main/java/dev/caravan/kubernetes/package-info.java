/**
 * Kubernetes service discovery: ready pods matching a label selector become workers, and leave (drained) when they
 * stop being ready, stop matching, terminate or disappear. {@link dev.caravan.kubernetes.PodClassifier}
 * decides from one pod, {@link dev.caravan.kubernetes.WorkerReconciler} applies events and lists to the
 * registry, {@link dev.caravan.kubernetes.DiscoveryMetrics} counts it, and the {@code pod-watch:} consumer
 * ({@link dev.caravan.components.podwatch}) feeds the {@code discovery} route. See docs/kubernetes.md.
 */
package dev.caravan.kubernetes;
