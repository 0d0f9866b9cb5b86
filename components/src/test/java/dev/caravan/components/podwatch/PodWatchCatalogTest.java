package dev.caravan.components.podwatch;

import static dev.caravan.components.GeneratedCatalog.asCatalogDefault;
import static dev.caravan.components.GeneratedCatalog.catalogDefault;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;

import dev.caravan.components.GeneratedCatalog;
import org.apache.camel.catalog.EndpointValidationResult;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.PropertyConfigurerGetter;
import org.apache.camel.tooling.model.ComponentModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generated catalog (pod-watch.json) and configurer, used through Camel's own APIs: every option is listed with the
 * default a fresh endpoint really has, and Camel's endpoint validation reports mistyped options and bad values.
 */
class PodWatchCatalogTest {

    private final DefaultCamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    @Test
    void catalogListsEveryOptionWithTheDefaultAFreshEndpointHas() {
        ComponentModel model = GeneratedCatalog.model(camel, "pod-watch");
        PodWatchEndpoint fresh = camel.getEndpoint("pod-watch:workers", PodWatchEndpoint.class);
        PropertyConfigurerGetter getter = (PropertyConfigurerGetter) fresh.getComponent().getEndpointPropertyConfigurer();

        Map<String, String> catalog = new TreeMap<>();
        Map<String, String> runtime = new TreeMap<>();
        model.getEndpointParameterOptions().stream()
                .filter(o -> PodWatchConfiguration.class.getName().equals(o.getConfigurationClass()))
                .forEach(o -> {
                    catalog.put(o.getName(), catalogDefault(o.getDefaultValue()));
                    runtime.put(o.getName(), asCatalogDefault(getter.getOptionValue(fresh, o.getName(), false)));
                });

        assertThat(getter).isInstanceOf(PodWatchEndpointConfigurer.class);
        assertThat(catalog).containsOnlyKeys("namespace", "resyncInterval", "backoffInitial", "backoffMax",
                "kubernetesClient", "watchListener");
        assertThat(catalog).isEqualTo(runtime)
                .containsEntry("resyncInterval", "" + PodWatchConfiguration.DEFAULT_RESYNC_INTERVAL_MS)
                .containsEntry("backoffInitial", "" + PodWatchConfiguration.DEFAULT_BACKOFF_INITIAL_MS)
                .containsEntry("backoffMax", "" + PodWatchConfiguration.DEFAULT_BACKOFF_MAX_MS);
        assertThat(model.isConsumerOnly()).isTrue();
    }

    @Test
    void runtimeCatalogReportsAMistypedOptionAndAcceptsAValidUri() throws Exception {
        EndpointValidationResult typo = GeneratedCatalog.runtimeCatalog(camel)
                .validateEndpointProperties("pod-watch:workers?namesapce=llm");
        EndpointValidationResult valid = GeneratedCatalog.runtimeCatalog(camel).validateEndpointProperties(
                "pod-watch:workers?namespace=llm&resyncInterval=90s&kubernetesClient=#kubernetesClient");

        assertThat(typo.isSuccess()).isFalse();
        assertThat(typo.getUnknown()).containsExactly("namesapce");
        assertThat(valid.isSuccess()).as(valid.summaryErrorMessage(false)).isTrue();
        assertThat(GeneratedCatalog.runtimeCatalog(camel).endpointProperties("pod-watch:workers"))
                .containsExactly(Map.entry("name", "workers"));
    }

    @Test
    void runtimeCatalogReportsABadDurationAndAClientThatIsNotABeanReference() {
        EndpointValidationResult r = GeneratedCatalog.runtimeCatalog(camel)
                .validateEndpointProperties("pod-watch:workers?resyncInterval=often&kubernetesClient=kubernetesClient");

        assertThat(r.getInvalidDuration()).containsExactly(Map.entry("resyncInterval", "often"));
        assertThat(r.getInvalidReference()).containsExactly(Map.entry("kubernetesClient", "kubernetesClient"));
    }
}
