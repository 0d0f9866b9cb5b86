package dev.caravan.bench.drive;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Where the benchmark sends requests for one policy: a load balancer (the Caravan gateway, nginx, or an external URL)
 * in front of engines — or several gateway replicas, which the driver then alternates over (a round-robin client
 * front). Closing it stops whatever it started.
 */
public interface Target extends AutoCloseable {

    /** The URLs the driver sends to, in turn (one for a single load balancer or an nginx front). */
    List<URI> baseUrls();

    /** The Caravan gateway replicas behind the front, whose {@code /metrics} the report reads; empty for others. */
    default List<URI> gatewayUrls() {
        return List.of();
    }

    /** Engine names in engine order (the simulator's ids: {@code "0"}, {@code "1"}, ...); empty when unknown. */
    List<String> engines();

    /** One probe per engine reading the engine's own running + waiting count; empty when not available. */
    IntSupplier[] inflightProbes();

    /** What was configured, for the report (gateway flags, nginx upstream directives). */
    Map<String, String> settings();

    @Override
    void close();
}
