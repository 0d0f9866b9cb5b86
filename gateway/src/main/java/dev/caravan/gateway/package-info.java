/**
 * The gateway's composition: {@link dev.caravan.gateway.GatewayBeans} builds every bean the YAML routes reference from a
 * {@code GatewayConfig}, and {@link dev.caravan.gateway.CaravanGateway#install} adds beans, routes and (if needed) the
 * HTTP server to any {@code CamelContext} — the embedding API, also used by the integration tests.
 */
package dev.caravan.gateway;
