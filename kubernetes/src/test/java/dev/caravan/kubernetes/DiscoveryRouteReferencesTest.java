package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.gateway.GatewayBeans;
import dev.caravan.gateway.RouteReferences;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.pd.PdFeature;

/**
 * With {@code --service-discovery} (this module's beans join through its {@code OptionalFeature}), every reference of
 * the discovery route and of the gateway's built-in routes resolves; without it the discovery route is not loaded, and
 * its beans do not exist. No Camel context is started.
 */
class DiscoveryRouteReferencesTest {

    /** The routes module's folder: every route file, this module's and the other optional one's too. */
    private static final Path ROUTES = Path.of("..", "routes");
    /** The route files of the optional modules, loaded only when the configuration turns them on. */
    private static final List<String> OPTIONAL_FILES = List.of("discovery.camel.yaml", "sync.camel.yaml");

    private static GatewayConfig discovering() {
        return GatewayConfig.defaults().with(CoreFlags.SERVICE_DISCOVERY, "true");
    }

    /** The references of this module's route file. */
    private static List<RouteReferences.Reference> moduleReferences() {
        return new ArrayList<>(RouteReferences.in(ROUTES.resolve(DiscoveryFeature.ROUTES_FILE)));
    }

    /** The references of the built-in route files, the optional modules' left out. */
    private static List<RouteReferences.Reference> gatewayReferences() {
        List<RouteReferences.Reference> found = new ArrayList<>();
        RouteReferences.routeFiles(ROUTES).stream()
                .filter(f -> !OPTIONAL_FILES.contains(f.getFileName().toString()))
                .forEach(f -> found.addAll(RouteReferences.in(f)));
        return found;
    }

    @Test
    void everyReferenceResolvesWithDiscoveryOn() {
        for (GatewayConfig config : List.of(discovering().with(DiscoveryFeature.SELECTOR, "app=vllm"),
                discovering().with(PdFeature.PD_DISAGGREGATION, "true")
                        .with(DiscoveryFeature.PREFILL_SELECTOR, "role=prefill")
                        .with(DiscoveryFeature.DECODE_SELECTOR, "role=decode"))) {
            try (GatewayBeans beans = new GatewayBeans(config, null, null)) {
                assertThat(beans.excludedRoutes()).doesNotContain(DiscoveryFeature.ROUTES_FILE);
                List<RouteReferences.Reference> refs = moduleReferences();
                assertThat(refs).extracting(RouteReferences.Reference::bean)
                        .containsExactlyInAnyOrder(DiscoveryFeature.DISCOVERY_METRICS, DiscoveryFeature.RECONCILE_WORKERS);
                refs.addAll(gatewayReferences());
                assertThat(RouteReferences.unresolved(refs, beans.beans())).isEmpty();
            }
        }
    }

    @Test
    void withoutDiscoveryItsRouteIsNotLoadedAndItsBeansDoNotExist() {
        try (GatewayBeans beans = new GatewayBeans(GatewayConfig.defaults(), null, null)) {
            assertThat(beans.excludedRoutes()).isEqualTo("**/" + DiscoveryFeature.ROUTES_FILE + ",**/sync.camel.yaml");
            assertThat(RouteReferences.unresolved(moduleReferences(), beans.beans())).hasSize(2);
        }
    }
}
