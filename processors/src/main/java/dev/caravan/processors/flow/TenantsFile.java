package dev.caravan.processors.flow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import dev.caravan.processors.admission.FlowKey;

/**
 * Reads the tenants file ({@code --tenants-file}), YAML or JSON (JSON is YAML), example in
 * {@code config/examples/tenants.yaml}:
 * <pre>
 * trustTenantHeader: false          # honour X-Caravan-Tenant (only behind an authenticating proxy)
 * classes:                          # priority 0 first; queueTimeoutSecs defaults to --queue-timeout-secs
 *   interactive: { priority: 0, queueTimeoutSecs: 10 }
 *   batch:       { priority: 1 }
 * defaultTenant:                    # every caller the file does not name ("other")
 *   class: batch
 *   requestsPerMinute: 60
 * tenants:
 *   acme:
 *     class: interactive
 *     apiKeys: [ "sk-acme-1" ]
 *     requestsPerMinute: 600
 *     inputTokensPerMinute: 200000
 *     outputTokensPerMinute: 50000
 * </pre>
 * Strict: an unknown field, an undeclared class, an API key given to two tenants or a tenant named {@code other} is
 * an error naming the place, so a typo never silently lifts a limit. A class named {@code default} (priority 0) exists
 * unless the file declares it.
 */
public final class TenantsFile {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> TOP = Set.of("trustTenantHeader", "classes", "defaultTenant", "tenants");
    private static final Set<String> CLASS_FIELDS = Set.of("priority", "queueTimeoutSecs");
    private static final Set<String> TENANT_FIELDS = Set.of("class", "apiKeys", "requestsPerMinute",
            "inputTokensPerMinute", "outputTokensPerMinute");

    private TenantsFile() {
    }

    /** @throws IllegalArgumentException naming the file and what is wrong */
    public static TenantsConfig read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read tenants file " + file + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tenants file " + file + ": " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException saying what is wrong */
    public static TenantsConfig parse(String text) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (IOException e) {
            String why = e instanceof com.fasterxml.jackson.core.JacksonException j ? j.getOriginalMessage()
                    : e.getMessage();
            throw new IllegalArgumentException("not YAML or JSON: " + why, e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new IllegalArgumentException("empty");
        }
        object(root, "the top level", TOP);
        Map<String, TenantClass> classes = new LinkedHashMap<>();
        classes.put(TenantClass.DEFAULT.name(), TenantClass.DEFAULT);
        for (Map.Entry<String, JsonNode> c : fields(root.get("classes"), "classes")) {
            JsonNode node = object(c.getValue(), "class " + c.getKey(), CLASS_FIELDS);
            JsonNode timeout = node.get("queueTimeoutSecs");
            classes.put(c.getKey(), new TenantClass(c.getKey(), (int) number(node, "priority", 0, "class " + c.getKey()),
                    timeout == null ? null : Duration.ofSeconds(number(node, "queueTimeoutSecs", 0,
                            "class " + c.getKey()))));
        }
        Tenant fallback = root.has("defaultTenant")
                ? tenant(FlowKey.OTHER, root.get("defaultTenant"), classes, "defaultTenant")
                : Tenant.OTHER;
        if (root.path("defaultTenant").has("apiKeys")) {
            throw new IllegalArgumentException("defaultTenant: apiKeys makes no sense for unknown callers");
        }
        Map<String, Tenant> tenants = new LinkedHashMap<>();
        Map<String, Tenant> byKey = new HashMap<>();
        for (Map.Entry<String, JsonNode> t : fields(root.get("tenants"), "tenants")) {
            String name = t.getKey();
            if (name.equals(FlowKey.OTHER)) {
                throw new IllegalArgumentException("tenant name 'other' is reserved for unknown callers (defaultTenant)");
            }
            Tenant tenant = tenant(name, t.getValue(), classes, "tenant " + name);
            tenants.put(name, tenant);
            for (JsonNode key : t.getValue().path("apiKeys")) {
                if (!key.isTextual() || key.asText().isBlank()) {
                    throw new IllegalArgumentException("tenant " + name + ": apiKeys must be non-blank strings");
                }
                Tenant before = byKey.put(TenantsConfig.digest(key.asText()), tenant);
                if (before != null) {
                    throw new IllegalArgumentException("tenant " + name + ": an API key of tenant " + before.name()
                            + " is given again");
                }
            }
        }
        JsonNode trust = root.get("trustTenantHeader");
        if (trust != null && !trust.isBoolean()) {
            throw new IllegalArgumentException("trustTenantHeader must be true or false, was " + trust);
        }
        return new TenantsConfig(trust != null && trust.asBoolean(), tenants, byKey, fallback);
    }

    private static Tenant tenant(String name, JsonNode node, Map<String, TenantClass> classes, String where) {
        object(node, where, TENANT_FIELDS);
        String className = node.path("class").asText(TenantClass.DEFAULT.name());
        TenantClass tenantClass = classes.get(className);
        if (tenantClass == null) {
            throw new IllegalArgumentException(where + ": class " + className + " is not declared under classes");
        }
        if (node.has("apiKeys") && !node.get("apiKeys").isArray()) {
            throw new IllegalArgumentException(where + ": apiKeys must be a list");
        }
        long requests = number(node, "requestsPerMinute", TenantLimits.UNLIMITED, where);
        long input = number(node, "inputTokensPerMinute", TenantLimits.UNLIMITED, where);
        long output = number(node, "outputTokensPerMinute", TenantLimits.UNLIMITED, where);
        try {
            return new Tenant(name, tenantClass, new TenantLimits(requests, input, output));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode object(JsonNode node, String where, Set<String> allowed) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(where + " must be a mapping");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) {
                throw new IllegalArgumentException(where + ": unknown field '" + f + "' (known: "
                        + new java.util.TreeSet<>(allowed) + ")");
            }
        }
        return node;
    }

    private static Iterable<Map.Entry<String, JsonNode>> fields(JsonNode node, String where) {
        if (node == null || node.isNull()) {
            return java.util.List.of();
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + " must be a mapping of names");
        }
        return node::fields;
    }

    private static long number(JsonNode node, String field, long fallback, String where) {
        JsonNode v = node.get(field);
        if (v == null) {
            return fallback;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber()) {
            throw new IllegalArgumentException(where + ": " + field + " must be a whole number, was " + v);
        }
        return v.asLong();
    }
}
