/**
 * The gateway's configuration: one table of flags ({@link dev.caravan.processors.config.CaravanFlags}) binding SGLang
 * {@code launch_router} flags to {@code caravan.*} properties, the argument parser, the layered resolver (flags, environment,
 * files, defaults) and the validated {@link dev.caravan.processors.config.GatewayConfig}.
 */
package dev.caravan.processors.config;
