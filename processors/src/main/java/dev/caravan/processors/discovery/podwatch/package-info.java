/**
 * The {@code pod-watch:} Camel component: a self-healing Kubernetes pod list+watch loop as a consumer. Split as Camel
 * components are: {@link dev.caravan.processors.discovery.podwatch.PodWatchComponent} (URI parsing),
 * {@link dev.caravan.processors.discovery.podwatch.PodWatchEndpoint} (factory),
 * {@link dev.caravan.processors.discovery.podwatch.PodWatchConfiguration} (every option),
 * {@link dev.caravan.processors.discovery.podwatch.PodWatchConsumer} and
 * {@link dev.caravan.processors.discovery.podwatch.PodWatchConstants} (headers); the loop itself, free of Camel, is
 * {@link dev.caravan.processors.discovery.podwatch.PodListWatch}.
 */
package dev.caravan.processors.discovery.podwatch;
