/**
 * The gateway's composition: {@link dev.caravan.gateway.GatewayBeans} builds every bean the YAML routes reference from a
 * {@code GatewayConfig}, and {@link dev.caravan.gateway.CaravanGateway#install} adds beans, routes and the gateway's own
 * HTTP server to any {@code CamelContext} after checking its Camel version ({@link
 * dev.caravan.gateway.CamelCompatibility}) — the embedding API (docs/embedding.md), also used by the integration tests.
 */
package dev.caravan.gateway;
