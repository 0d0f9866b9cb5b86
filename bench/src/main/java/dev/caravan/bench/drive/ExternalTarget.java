package dev.caravan.bench.drive;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * A load balancer the benchmark did not start ({@code --gateway URL}): requests go there, engines are identified from
 * response ids when they are simulated engines, and in-flight load is not sampled (the engines are not ours to probe).
 * Caches are whatever state the external fleet is in; flush them first for a cold start.
 */
public final class ExternalTarget implements Target {

    private final URI base;

    public ExternalTarget(URI base) {
        this.base = base;
    }

    @Override
    public URI baseUrl() {
        return base;
    }

    @Override
    public List<String> engines() {
        return List.of();
    }

    @Override
    public IntSupplier[] inflightProbes() {
        return new IntSupplier[0];
    }

    @Override
    public Map<String, String> settings() {
        return Map.of("gateway", base.toString());
    }

    @Override
    public void close() {
    }
}
