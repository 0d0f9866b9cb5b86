/**
 * Admin API steps (SGLang's worker management surface): {@code POST/GET /workers}, {@code GET|PUT|DELETE /workers/{id}},
 * the legacy {@code /add_worker}, {@code /remove_worker}, {@code /list_workers} ({@code /readiness} and {@code /liveness}
 * answer from the health checks: {@code dev.caravan.processors.health.ReportHealthProcessor}). Each step reads
 * the request from the exchange and answers with JSON; errors are {@code GatewayException}s for {@code mapError}.
 */
package dev.caravan.processors.admin;
