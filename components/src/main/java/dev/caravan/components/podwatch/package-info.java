/**
 * The {@code pod-watch:} Camel component: a self-healing Kubernetes pod list+watch loop as a consumer. Split as Camel
 * components are: {@link dev.caravan.components.podwatch.PodWatchComponent} (URI parsing),
 * {@link dev.caravan.components.podwatch.PodWatchEndpoint} (factory),
 * {@link dev.caravan.components.podwatch.PodWatchConfiguration} (every option),
 * {@link dev.caravan.components.podwatch.PodWatchConsumer} and
 * {@link dev.caravan.components.podwatch.PodWatchConstants} (headers); the loop itself, free of Camel, is
 * {@link dev.caravan.components.podwatch.PodListWatch}.
 */
package dev.caravan.components.podwatch;
