package dev.caravan.processors.health;

/**
 * The result of one {@link HealthProbe}.
 *
 * @param probe  what was probed
 * @param ok     a 2xx arrived within the timeout
 * @param detail the status ({@code HTTP 503}) or the failure ({@code timeout}, {@code Connection refused})
 */
public record HealthProbeResult(HealthProbe probe, boolean ok, String detail) {
}
