/**
 * An existing Camel application that embeds the Caravan gateway (docs/embedding.md): {@link
 * dev.caravan.examples.embedded.EmbeddedApp} on a plain {@code DefaultCamelContext}, {@link
 * dev.caravan.examples.embedded.CamelMainApp} on camel-main, both with the application's own routes ({@link
 * dev.caravan.examples.embedded.HostRoutes}, {@code app-routes/*.camel.yaml}) on the application's own platform-http
 * server.
 */
package dev.caravan.examples.embedded;
