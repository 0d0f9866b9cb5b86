package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.health.HealthFeature;

/**
 * Placeholders in settings go through Camel's properties component (the Kubernetes Secret function is covered against
 * a mock API server by SecretApiKeysIT); API keys never from a ConfigMap; failures name the flag, never a value.
 */
class ConfigPlaceholdersTest {

    private static CamelContext context(Map<String, String> properties) {
        CamelContext c = new DefaultCamelContext();
        Properties p = new Properties();
        p.putAll(properties);
        c.getPropertiesComponent().setInitialProperties(p);
        return c;
    }

    @Test
    void resolvesPlaceholdersAndChecksTheResultAgainstItsRow() {
        GatewayConfig config = GatewayConfig.defaults()
                .with(CoreFlags.API_KEY, "{{keys.client}}")
                .with(HealthFeature.HEALTH_CHECK_ENDPOINT, "/{{probe.path}}");
        GatewayConfig resolved = ConfigPlaceholders.resolve(config, context(Map.of("keys.client", "sk-from-vault",
                "probe.path", "ready")));

        assertThat(resolved.apiKey()).isEqualTo("sk-from-vault");
        assertThat(resolved.get(HealthFeature.HEALTH_CHECK_ENDPOINT)).isEqualTo("/ready");
        assertThat(ConfigPlaceholders.any(resolved)).isFalse();
    }

    @Test
    void aConfigWithoutPlaceholdersIsReturnedAsIs() {
        GatewayConfig plain = GatewayConfig.defaults().with(CoreFlags.API_KEY, "sk-1");
        assertThat(ConfigPlaceholders.resolve(plain, Map.of())).isSameAs(plain);
    }

    @Test
    void theStandaloneFormUsesTheApplicationsCamelProperties() {
        GatewayConfig config = GatewayConfig.defaults().with(CoreFlags.ADMIN_API_KEY, "{{admin.key}}");
        assertThat(ConfigPlaceholders.resolve(config, Map.of("admin.key", "sk-admin")).adminApiKey())
                .isEqualTo("sk-admin");
    }

    @Test
    void apiKeysMayNotComeFromAConfigMap() {
        GatewayConfig config = GatewayConfig.defaults().with(CoreFlags.ADMIN_API_KEY,
                "{{configmap:caravan-config/admin-key}}");
        assertThatThrownBy(() -> ConfigPlaceholders.resolve(config, context(Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--admin-api-key must come from a Secret ({{secret:name/key}}), not a ConfigMap: "
                        + "{{configmap:caravan-config/admin-key}}");
    }

    @Test
    void anUnresolvablePlaceholderNamesTheFlagAndThePlaceholder() {
        GatewayConfig config = GatewayConfig.defaults().with(CoreFlags.API_KEY, "{{keys.missing}}");
        assertThatThrownBy(() -> ConfigPlaceholders.resolve(config, context(Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--api-key: cannot resolve {{keys.missing}}: ");
    }
}
