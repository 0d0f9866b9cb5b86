package dev.caravan.bench.drive;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/**
 * Load balancers the benchmark did not start ({@code --gateway URL[,URL...]}): requests go there (alternating when
 * several replicas are given), engines are identified from response ids when they are simulated engines, and in-flight
 * load is not sampled (the engines are not ours to probe). Caches are whatever state the external fleet is in; flush
 * them first for a cold start.
 */
public final class ExternalTarget implements Target {

    private final List<URI> bases;

    public ExternalTarget(List<URI> bases) {
        if (bases.isEmpty()) {
            throw new IllegalArgumentException("--gateway needs at least one URL");
        }
        this.bases = List.copyOf(bases);
    }

    @Override
    public List<URI> baseUrls() {
        return bases;
    }

    /** They may be Caravan replicas: their {@code /metrics} are read (nothing is reported for other balancers). */
    @Override
    public List<URI> gatewayUrls() {
        return bases;
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
        return Map.of("gateway", bases.stream().map(URI::toString).collect(Collectors.joining(",")));
    }

    @Override
    public void close() {
    }
}
