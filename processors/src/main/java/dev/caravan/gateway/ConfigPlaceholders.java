package dev.caravan.gateway;

import java.util.Map;
import java.util.Properties;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * Resolves Camel property placeholders in the gateway's settings once, before the gateway is built: any
 * {@code caravan.*} value containing {@code {{...}}} goes through Camel's properties component, so every properties
 * function on the class path works — {@code {{secret:name/key}}} and {@code {{configmap:name/key}}} (camel-kubernetes,
 * which {@code caravan-kubernetes} brings: a Secret or ConfigMap of the gateway's namespace, read through the Kubernetes
 * API or from {@code camel.kubernetes-config.mount-path-secrets}), {@code {{env:NAME}}}, {@code {{sys:name}}}, the
 * vaults. The resolved value is then checked against its row like any other (a placeholder is therefore only useful in
 * a text setting: keys, URLs, selectors).
 *
 * <p><b>API keys come from a Secret.</b> {@code --api-key} and {@code --admin-api-key} may not be resolved from a
 * ConfigMap (whose contents any reader of the namespace's configuration sees): such a value fails with a message
 * naming the flag. A value that cannot be resolved (a missing Secret or key) fails the start, naming the flag and the
 * placeholder, never the value.
 */
public final class ConfigPlaceholders {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigPlaceholders.class);
    private static final String CONFIGMAP_FUNCTIONS = "{{configmap";

    private ConfigPlaceholders() {
    }

    /** True when some {@code caravan.*} value holds a placeholder. */
    public static boolean any(GatewayConfig config) {
        return config.asProperties().values().stream().anyMatch(ConfigPlaceholders::isPlaceholder);
    }

    /**
     * The configuration with every placeholder resolved by {@code context}'s properties component (an embedding
     * application's context: its property sources, functions and registry, e.g. a {@code KubernetesClient} bean).
     *
     * @throws IllegalArgumentException naming the flag, when a value cannot be resolved or an API key names a ConfigMap
     */
    public static GatewayConfig resolve(GatewayConfig config, CamelContext context) {
        GatewayConfig out = config;
        PropertiesComponent properties = context.getPropertiesComponent();
        for (Map.Entry<String, String> e : config.asProperties().entrySet()) {
            String value = e.getValue();
            if (!isPlaceholder(value)) {
                continue;
            }
            String setting = CaravanFlags.byKey(e.getKey()).map(CaravanFlag::flag).orElse(e.getKey());
            if (isApiKey(e.getKey()) && value.replace(" ", "").contains(CONFIGMAP_FUNCTIONS)) {
                throw new IllegalArgumentException(setting + " must come from a Secret ({{secret:name/key}}), not a "
                        + "ConfigMap: " + value);
            }
            String resolved;
            try {
                resolved = properties.parseUri(value);
            } catch (RuntimeException ex) {
                throw new IllegalArgumentException(setting + ": cannot resolve " + value + ": " + ex.getMessage(), ex);
            }
            out = out.with(e.getKey(), resolved);
            LOG.info("{} resolved from {}", setting, value);
        }
        return out;
    }

    /**
     * As {@link #resolve(GatewayConfig, CamelContext)}, for {@code ./caravan run}, which builds the gateway before
     * camel-main creates its context: a short-lived context with the application's {@code camel.*} properties (e.g.
     * {@code camel.kubernetes-config.client.masterUrl} outside a cluster) resolves them, and whatever its functions
     * created (a Kubernetes client) is closed with it. No context at all when nothing is a placeholder.
     */
    public static GatewayConfig resolve(GatewayConfig config, Map<String, String> camelProperties) {
        if (!any(config)) {
            return config;
        }
        DefaultCamelContext context = new DefaultCamelContext();
        try {
            Properties p = new Properties();
            p.putAll(camelProperties);
            context.getPropertiesComponent().setOverrideProperties(p);
            return resolve(config, context);
        } finally {
            closeCreatedBeans(context);
            context.stop();
        }
    }

    private static void closeCreatedBeans(CamelContext context) {
        for (AutoCloseable bean : context.getRegistry().findByType(AutoCloseable.class)) {
            try {
                bean.close();
            } catch (Exception e) {
                LOG.debug("Closing {} after resolving the settings failed: {}", bean, e.toString());
            }
        }
    }

    private static boolean isPlaceholder(String value) {
        return value != null && value.contains("{{") && value.contains("}}");
    }

    private static boolean isApiKey(String key) {
        return key.equals(CoreFlags.API_KEY.key()) || key.equals(CoreFlags.ADMIN_API_KEY.key());
    }
}
