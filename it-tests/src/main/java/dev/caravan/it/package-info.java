/**
 * Reusable integration-test fixtures: {@link dev.caravan.it.GatewayHarness} (an in-process gateway on an ephemeral
 * loopback port), {@link dev.caravan.it.SimFleetExtension} (simulated engines per test class),
 * {@link dev.caravan.it.GatewayClient} (JSON and timestamped streaming) and {@link dev.caravan.it.RawHttpStream}
 * (a client that can hang up mid-stream).
 */
package dev.caravan.it;
