package dev.caravan.processors.health;

import java.time.Duration;

import dev.caravan.policies.Worker;

/**
 * One planned health probe: {@code GET url} within {@code timeout}, with the worker's (or the gateway's) API key.
 *
 * @param worker  the worker probed
 * @param url     the full URL ({@code worker url + endpoint})
 * @param timeout the probe's limit (the worker's {@code health_check_timeout_secs} or the gateway's)
 */
public record HealthProbe(Worker worker, String url, Duration timeout) {
}
