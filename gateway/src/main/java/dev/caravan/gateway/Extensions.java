package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The {@link GatewayExtension}s on the class path, and the features the configuration asks for that have none. The
 * gateway knows its optional features by their switch ({@code --service-discovery}), so a missing module is a clear
 * start-up error rather than a silently ignored flag.
 */
public final class Extensions {

    /** An optional feature: its switch, when the configuration turns it on, and the extension that provides it. */
    private record Feature(String flag, Predicate<GatewayConfig> on, String provider, String artifact) {
    }

    private static final List<Feature> OPTIONAL = List.of(
            new Feature(CaravanFlags.SERVICE_DISCOVERY.flag(), c -> c.getBoolean(CaravanFlags.SERVICE_DISCOVERY),
                    "Kubernetes service discovery", "dev.caravan:caravan-kubernetes"),
            new Feature(CaravanFlags.SYNC_MODE.flag(),
                    c -> !CaravanFlags.SYNC_NONE.equals(c.get(CaravanFlags.SYNC_MODE)),
                    "Replica sync", "dev.caravan:caravan-sync"));

    private final List<GatewayExtension> all;

    private Extensions(List<GatewayExtension> all) {
        this.all = List.copyOf(all);
    }

    /** The extensions visible to the gateway's class loader. */
    public static Extensions load() {
        List<GatewayExtension> found = new ArrayList<>();
        ServiceLoader.load(GatewayExtension.class, Extensions.class.getClassLoader()).forEach(found::add);
        return new Extensions(found);
    }

    /**
     * The extensions the configuration enables.
     *
     * @throws IllegalArgumentException when it turns on an optional feature whose module is not on the class path
     */
    public List<GatewayExtension> enabled(GatewayConfig config) {
        for (Feature f : OPTIONAL) {
            if (f.on().test(config) && all.stream().noneMatch(e -> e.name().equals(f.provider()))) {
                throw new IllegalArgumentException(f.flag() + " needs " + f.provider() + ": add " + f.artifact()
                        + " to the class path");
            }
        }
        return all.stream().filter(e -> e.enabled(config)).toList();
    }

    /**
     * Ant-style patterns (comma-separated, camel-main's syntax) of the route files of extensions on the class path that
     * the configuration leaves off; empty when none.
     */
    public String excludedRoutes(GatewayConfig config) {
        return all.stream().filter(e -> !e.enabled(config)).map(e -> "**/" + e.routesFile())
                .collect(Collectors.joining(","));
    }
}
