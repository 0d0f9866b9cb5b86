package dev.caravan.gateway;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.feature.OptionalFeature;

/**
 * The {@link OptionalFeature}s on the class path ({@link Features#optional()}), and the optional features the
 * configuration asks for that have no module. The gateway knows its optional features by their switch, a core row
 * ({@code --service-discovery}, {@code --sync}), so turning one on without its module is a clear start-up error naming
 * the artifact rather than a silently ignored flag.
 */
public final class Extensions {

    /**
     * An optional feature the core knows by its switch: when the configuration turns it on, the name its module's
     * {@link OptionalFeature#name()} answers, the artifact, and its route file (in the routes module with the others,
     * left out while the feature is off).
     */
    private record Known(String flag, Predicate<GatewayConfig> on, String name, String artifact, String routesFile) {
    }

    private static final List<Known> KNOWN = List.of(
            new Known(CoreFlags.SERVICE_DISCOVERY.flag(), c -> c.getBoolean(CoreFlags.SERVICE_DISCOVERY),
                    "Kubernetes service discovery", "dev.caravan:caravan-kubernetes", "discovery.camel.yaml"),
            new Known(CoreFlags.SYNC_MODE.flag(),
                    c -> !CoreFlags.SYNC_NONE.equals(c.get(CoreFlags.SYNC_MODE)),
                    "Replica sync", "dev.caravan:caravan-sync", "sync.camel.yaml"));

    private final List<OptionalFeature> all;

    private Extensions(List<OptionalFeature> all) {
        this.all = List.copyOf(all);
    }

    /** A new instance of every optional feature visible to the gateway's class loader. */
    public static Extensions load() {
        return new Extensions(Features.optional());
    }

    /**
     * The optional features the configuration enables, in class-path order.
     *
     * @throws IllegalArgumentException when it turns on an optional feature whose module is not on the class path
     */
    public List<OptionalFeature> enabled(GatewayConfig config) {
        for (Known k : KNOWN) {
            if (k.on().test(config) && all.stream().noneMatch(f -> f.name().equals(k.name()))) {
                throw new IllegalArgumentException(k.flag() + " needs " + k.name() + ": add " + k.artifact()
                        + " to the class path");
            }
        }
        return all.stream().filter(f -> f.enabled(config)).toList();
    }

    /**
     * Ant-style patterns (comma-separated, camel-main's syntax) of the route files the configuration leaves off: those
     * of the optional features it does not turn on, and of any other optional feature on the class path it does not
     * enable; empty when none.
     */
    public String excludedRoutes(GatewayConfig config) {
        Set<String> off = new LinkedHashSet<>();
        for (Known k : KNOWN) {
            if (!k.on().test(config)) {
                off.add("**/" + k.routesFile());
            }
        }
        all.stream().filter(f -> !f.enabled(config)).forEach(f -> off.add("**/" + f.routesFile()));
        return String.join(",", off);
    }
}
