package dev.caravan.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import dev.caravan.gateway.CamelCompatibility;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * A host on Camel 4.14 (this module's class path, by its own camel-bom import) gets one clear message from
 * {@code install}, which touches nothing else: no beans bound, no threads started.
 */
class Camel414HostTest {

    @Test
    void theClassPathReallyIsCamel414() {
        assertThat(new DefaultCamelContext().getVersion()).startsWith("4.14.");
    }

    @Test
    void installRefusesNamingTheVersionsFoundAndRequired() {
        DefaultCamelContext context = new DefaultCamelContext();
        String found = context.getVersion();
        long vertxThreads = vertxThreads();

        assertThatThrownBy(() -> CaravanGateway.install(context, GatewayConfig.defaults()
                .with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "-1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Caravan gateway needs Apache Camel " + CamelCompatibility.RANGE
                        + " (4.x from 4.18.0; built and tested with 4.18.0), found " + found + " (camel-core, camel-api, "
                        + "camel-support, camel-platform-http, camel-platform-http-vertx, camel-yaml-dsl, "
                        + "camel-micrometer, camel-jackson, camel-resilience4j, camel-health)")
                .hasMessageEndingWith("Align the application's Camel version, e.g. import "
                        + "org.apache.camel:camel-bom:4.18.0");
        assertThat(context.getRegistry().lookupByName("caravan-http")).isNull();
        assertThat(vertxThreads()).isEqualTo(vertxThreads);
    }

    private static long vertxThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("vert.x-")).count();
    }
}
