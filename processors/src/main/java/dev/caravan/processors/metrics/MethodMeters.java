package dev.caravan.processors.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;

/** One method's SGLang meters of an endpoint ({@link EndpointMeters}). */
record MethodMeters(String method, Counter requests, Timer duration) {
}
