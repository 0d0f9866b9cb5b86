/**
 * The {@code selectWorker} step and the per-model policy registry: which workers may serve a request, which policy
 * instance decides, and the load lease that accompanies the decision.
 */
package dev.caravan.processors.routing;
