package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.gateway.GatewayBeans;
import dev.caravan.gateway.RouteReferences;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * With {@code --service-discovery} (this module's beans join through its {@code GatewayExtension}), every reference of
 * the discovery route and of the gateway's built-in routes resolves; without it the discovery route is not loaded, and
 * its beans do not exist. No Camel context is started.
 */
class DiscoveryRouteReferencesTest {

    private static final Path ROUTES = Path.of("..", "routes");
    private static final Path DISCOVERY_ROUTES = ROUTES.resolve("discovery.camel.yaml");

    private static GatewayConfig discovering() {
        return GatewayConfig.defaults().with(CaravanFlags.SERVICE_DISCOVERY, "true");
    }

    private static List<RouteReferences.Reference> references(Path file) {
        return new ArrayList<>(RouteReferences.in(file));
    }

    /** The route files every configuration loads: all but the optional modules' (this one's and sync's). */
    private static List<RouteReferences.Reference> gatewayReferences() {
        List<RouteReferences.Reference> found = new ArrayList<>();
        RouteReferences.routeFiles(ROUTES).stream()
                .filter(f -> !f.endsWith("discovery.camel.yaml") && !f.endsWith("sync.camel.yaml"))
                .forEach(f -> found.addAll(RouteReferences.in(f)));
        return found;
    }

    @Test
    void everyReferenceResolvesWithDiscoveryOn() {
        for (GatewayConfig config : List.of(discovering().with(CaravanFlags.SELECTOR, "app=vllm"),
                discovering().with(CaravanFlags.PD_DISAGGREGATION, "true")
                        .with(CaravanFlags.PREFILL_SELECTOR, "role=prefill")
                        .with(CaravanFlags.DECODE_SELECTOR, "role=decode"))) {
            try (GatewayBeans beans = new GatewayBeans(config, null, null)) {
                assertThat(beans.excludedRoutes()).isEqualTo("**/sync.camel.yaml");
                List<RouteReferences.Reference> refs = references(DISCOVERY_ROUTES);
                assertThat(refs).extracting(RouteReferences.Reference::bean)
                        .containsExactlyInAnyOrder(DiscoveryBeans.DISCOVERY_METRICS, DiscoveryBeans.RECONCILE_WORKERS);
                refs.addAll(gatewayReferences());
                assertThat(RouteReferences.unresolved(refs, beans.beans())).isEmpty();
            }
        }
    }

    @Test
    void withoutDiscoveryItsRouteIsNotLoadedAndItsBeansDoNotExist() {
        try (GatewayBeans beans = new GatewayBeans(GatewayConfig.defaults(), null, null)) {
            assertThat(beans.excludedRoutes()).isEqualTo("**/" + DiscoveryBeans.ROUTES_FILE + ",**/sync.camel.yaml");
            assertThat(RouteReferences.unresolved(references(DISCOVERY_ROUTES), beans.beans())).hasSize(2);
        }
    }
}
