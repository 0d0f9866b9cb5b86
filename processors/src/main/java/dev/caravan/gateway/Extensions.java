package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.ServiceLoader;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The {@link GatewayExtension}s on the class path, and the features the configuration asks for that have none. The
 * gateway knows its optional features by their switch ({@code --service-discovery}), so a missing module is a clear
 * start-up error rather than a silently ignored flag.
 */
public final class Extensions {

    /**
     * An optional feature: its switch, when the configuration turns it on, the extension that provides it, and its route
     * file (in the routes module with the others, loaded only when the feature is on).
     */
    private record Feature(String flag, Predicate<GatewayConfig> on, String provider, String artifact,
                           String routesFile) {
    }

    private static final List<Feature> OPTIONAL = List.of(
            new Feature(CoreFlags.SERVICE_DISCOVERY.flag(), c -> c.getBoolean(CoreFlags.SERVICE_DISCOVERY),
                    "Kubernetes service discovery", "dev.caravan:caravan-kubernetes", "discovery.camel.yaml"),
            new Feature(CoreFlags.SYNC_MODE.flag(),
                    c -> !CoreFlags.SYNC_NONE.equals(c.get(CoreFlags.SYNC_MODE)),
                    "Replica sync", "dev.caravan:caravan-sync", "sync.camel.yaml"));

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
     * Ant-style patterns (comma-separated, camel-main's syntax) of the route files the configuration leaves off: those
     * of the optional features it does not turn on, and of any other extension on the class path it does not enable;
     * empty when none.
     */
    public String excludedRoutes(GatewayConfig config) {
        Set<String> off = new LinkedHashSet<>();
        for (Feature f : OPTIONAL) {
            if (!f.on().test(config)) {
                off.add("**/" + f.routesFile());
            }
        }
        all.stream().filter(e -> !e.enabled(config)).forEach(e -> off.add("**/" + e.routesFile()));
        return String.join(",", off);
    }
}
