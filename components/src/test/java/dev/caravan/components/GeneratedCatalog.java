package dev.caravan.components;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import org.apache.camel.CamelContext;
import org.apache.camel.CatalogCamelContext;
import org.apache.camel.catalog.RuntimeCamelCatalog;
import org.apache.camel.catalog.impl.AbstractCamelCatalog;
import org.apache.camel.tooling.model.ComponentModel;
import org.apache.camel.tooling.model.JsonMapper;

/**
 * Test access to a component's generated catalog, loaded the way Camel and its tooling load it: the JSON through
 * {@link CatalogCamelContext#getComponentParameterJsonSchema} (found next to the component class), parsed by Camel's
 * tooling model; URIs validated by the context's {@link RuntimeCamelCatalog}.
 */
public final class GeneratedCatalog {

    private GeneratedCatalog() {
    }

    /** The component's catalog model; fails when the build produced no JSON for the scheme. */
    public static ComponentModel model(CamelContext camel, String scheme) {
        try {
            String json = ((CatalogCamelContext) camel).getComponentParameterJsonSchema(scheme);
            if (json == null) {
                throw new AssertionError("no generated catalog JSON for " + scheme + ": was camel-component-maven-plugin run?");
            }
            return JsonMapper.generateComponentModel(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The runtime catalog with the URI-level API ({@code validateEndpointProperties(uri)}) that tooling uses; the
     * {@link RuntimeCamelCatalog} interface only exposes its two halves.
     */
    public static AbstractCamelCatalog runtimeCatalog(CamelContext camel) {
        return (AbstractCamelCatalog) camel.getCamelContextExtension().getContextPlugin(RuntimeCamelCatalog.class);
    }

    /**
     * A runtime value written as the catalog writes defaults: durations in milliseconds (our {@code DEFAULT_*_MS}
     * constants), enums by name, and null for "no default" (unset or the empty string, which an annotation cannot tell
     * apart from no default).
     */
    public static String asCatalogDefault(Object value) {
        if (value == null || "".equals(value)) {
            return null;
        }
        if (value instanceof Duration d) {
            return Long.toString(d.toMillis());
        }
        if (value instanceof Enum<?> e) {
            return e.name();
        }
        return value.toString();
    }

    /** The catalog's default as a string (it parses numbers and booleans into objects); null when it lists none. */
    public static String catalogDefault(Object defaultValue) {
        return defaultValue == null || "".equals(defaultValue.toString()) ? null : defaultValue.toString();
    }
}
