package dev.caravan.bench.drive;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Where the benchmark sends requests for one policy: a load balancer (the Caravan gateway, nginx, or an external URL)
 * in front of engines. Closing it stops whatever it started.
 */
public interface Target extends AutoCloseable {

    /** The load balancer's base URL. */
    URI baseUrl();

    /** Engine names in engine order (the simulator's ids: {@code "0"}, {@code "1"}, ...); empty when unknown. */
    List<String> engines();

    /** One probe per engine reading the engine's own running + waiting count; empty when not available. */
    IntSupplier[] inflightProbes();

    /** What was configured, for the report (gateway flags, nginx upstream directives). */
    Map<String, String> settings();

    @Override
    void close();
}
