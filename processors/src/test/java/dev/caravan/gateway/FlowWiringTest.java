package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.feature.MapWiring;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.tuning.CamelTuning;

/**
 * --tenants-file becomes the tenants in force; the flow feature binds its beans (admission with them) and sets the
 * reload route's placeholders.
 */
class FlowWiringTest {

    @TempDir
    Path dir;

    private GatewayConfig parse(String... args) {
        return ConfigResolver.resolve(args, Map.of(), dir).config();
    }

    private MapWiring wiring(GatewayConfig c) {
        MapWiring w = new MapWiring(c, null, new WorkerRegistry(), new SimpleMeterRegistry(), false);
        w.share(CamelTuning.class, CamelTuning.of(true));
        return w;
    }

    @Test
    void aTenantsFileIsReadAtStartAndItsReloadRouteEnabled() throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, "tenants: { acme: { apiKeys: [ k ] } }");
        GatewayConfig c = parse("--tenants-file", file.toString(), "--tenants-reload-interval-secs", "3");
        MapWiring w = wiring(c);
        FlowFeature flow = new FlowFeature();

        flow.wire(w);

        assertThat(flow.directory().current().resolve("Bearer k", null).name()).isEqualTo("acme");
        assertThat(w.beans()).containsOnlyKeys(FlowFeature.ADMISSION_CONTROLLER, FlowFeature.ADMIT_REQUEST,
                FlowFeature.IDENTIFY_TENANT, FlowFeature.LIMIT_TENANT_RATE, FlowFeature.RELOAD_TENANTS,
                FlowFeature.TENANT_DIRECTORY, FlowFeature.TENANT_RATE_LIMITER);
        assertThat(w.shared(AdmissionController.class)).isSameAs(flow.admission());
        assertThat(w.properties()).containsEntry("caravan.derived.tenants-reload-enabled", "true")
                .containsEntry("caravan.derived.tenants-reload-period-ms", "3000");
    }

    @Test
    void withoutATenantsFileEveryoneIsOtherAndNothingReloads() {
        GatewayConfig c = GatewayConfig.defaults();
        MapWiring w = wiring(c);
        FlowFeature flow = new FlowFeature();

        flow.wire(w);

        assertThat(flow.directory().file()).isNull();
        assertThat(w.properties()).containsEntry("caravan.derived.tenants-reload-enabled", "false")
                .containsEntry("caravan.derived.tenants-reload-period-ms",
                        Long.toString(TenantDirectory.DEFAULT_RELOAD_INTERVAL.toMillis()));
        assertThat(c.isSet(FlowFeature.TENANTS_FILE)).isFalse();
    }

    @Test
    void aBadTenantsFileStopsTheStartNamingTheFile() throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, "tenants: { acme: { class: gold } }");
        GatewayConfig c = parse("--tenants-file", file.toString());

        MapWiring w = wiring(c);

        assertThatThrownBy(() -> new FlowFeature().wire(w)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenants file " + file + ": tenant acme: class gold is not declared under classes");
    }
}
