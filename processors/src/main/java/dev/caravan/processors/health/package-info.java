/**
 * Health, both ways round. The workers': the probe steps of {@code health.camel.yaml} ({@code planHealthChecks},
 * {@code probeWorkers}, {@code applyHealthResults}: SGLang's hysteresis) and {@code /health_generate}. The gateway's
 * own: its readiness and liveness checks in Camel's {@code HealthCheckRegistry} ({@link
 * dev.caravan.processors.health.GatewayHealthChecks}) and the steps that answer {@code /readiness} and {@code /liveness}
 * from it ({@link dev.caravan.processors.health.ReportHealthProcessor}).
 */
package dev.caravan.processors.health;
