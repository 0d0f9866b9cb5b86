/**
 * The launcher's main classes: {@code CaravanCli} dispatches {@code ./caravan run|sim|demo}; {@code GatewayMain} runs the
 * gateway on camel-main (flags, reloadable routes); {@code DemoMain} runs it in front of simulated engines.
 */
package dev.caravan.app;
