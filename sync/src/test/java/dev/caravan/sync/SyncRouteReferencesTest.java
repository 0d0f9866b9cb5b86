package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.gateway.GatewayBeans;
import dev.caravan.gateway.RouteReferences;
import dev.caravan.processors.config.GatewayConfig;

/**
 * With {@code --sync hazelcast} every reference of the sync routes and the gateway's resolves (a one-member fleet on an
 * ephemeral loopback port); without it the sync route file is not loaded and its beans do not exist.
 */
class SyncRouteReferencesTest {

    /** The routes module's folder: every route file, this module's and the other optional one's too. */
    private static final Path ROUTES = Path.of("..", "routes");
    /** The route files of the optional modules, loaded only when the configuration turns them on. */
    private static final List<String> OPTIONAL_FILES = List.of("discovery.camel.yaml", "sync.camel.yaml");

    /** The references of this module's route file. */
    private static List<RouteReferences.Reference> moduleReferences() {
        return new ArrayList<>(RouteReferences.in(ROUTES.resolve(SyncFeature.ROUTES_FILE)));
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
    void everyReferenceResolvesWithSyncOn() {
        try (GatewayBeans beans = new GatewayBeans(Replicas.config(0, List.of("127.0.0.1:1")), null, null)) {
            assertThat(beans.excludedRoutes()).doesNotContain(SyncFeature.ROUTES_FILE);
            List<RouteReferences.Reference> refs = moduleReferences();
            assertThat(refs).extracting(RouteReferences.Reference::bean).contains(SyncFeature.HAZELCAST_INSTANCE,
                    SyncFeature.DRAIN_DECISIONS, SyncFeature.APPLY_PEER_DECISIONS, SyncFeature.REPORT_LOADS,
                    SyncFeature.APPLY_PEER_LOADS, SyncFeature.APPLY_PEER_SESSION, SyncFeature.TRACK_MEMBERS,
                    SyncFeature.TOUCH_SESSIONS, SyncFeature.RECORD_FAILURE);
            refs.addAll(gatewayReferences());
            assertThat(RouteReferences.unresolved(refs, beans.beans())).isEmpty();
        }
    }

    @Test
    void withoutSyncItsRouteIsNotLoadedAndNoMemberStarts() {
        try (GatewayBeans beans = new GatewayBeans(GatewayConfig.defaults(), null, null)) {
            assertThat(beans.excludedRoutes()).contains("**/" + SyncFeature.ROUTES_FILE);
            assertThat(beans.beans()).doesNotContainKey(SyncFeature.HAZELCAST_INSTANCE);
            assertThat(com.hazelcast.core.Hazelcast.getAllHazelcastInstances()).isEmpty();
        }
    }
}
