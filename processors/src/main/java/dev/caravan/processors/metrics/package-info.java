/**
 * The gateway's Micrometer meters ({@code caravan_*}) and the {@code scrapeMetrics} step that serves them, with Camel's
 * and the JVM's, as Prometheus text at {@code GET /metrics}.
 */
package dev.caravan.processors.metrics;
