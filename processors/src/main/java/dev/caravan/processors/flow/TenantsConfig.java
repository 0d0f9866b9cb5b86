package dev.caravan.processors.flow;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.caravan.processors.auth.BearerKey;

/**
 * The tenants file, parsed ({@link TenantsFile}): tenants by name, their API keys (kept only as SHA-256 digests), and
 * whether the tenant header is trusted. Immutable; a reload swaps the whole object ({@link TenantDirectory}).
 *
 * <p>{@link #resolve} is the trust rule: the {@value #TENANT_HEADER} header names the tenant only when the file says
 * {@code trustTenantHeader: true} (the gateway sits behind a proxy that authenticates callers and sets it) and names a
 * tenant of the file; otherwise the API key ({@code Authorization: Bearer <key>}) does; a caller neither names is
 * {@link #fallback()}.
 *
 * @param trustTenantHeader whether {@value #TENANT_HEADER} is honoured
 * @param tenants           the file's tenants by name
 * @param byKeyDigest       tenants by the hex SHA-256 of each of their API keys
 * @param fallback          the tenant of every other caller ({@code other}, in the default class)
 */
public record TenantsConfig(boolean trustTenantHeader, Map<String, Tenant> tenants, Map<String, Tenant> byKeyDigest,
                            Tenant fallback) {

    public static final String TENANT_HEADER = "X-Caravan-Tenant";

    /** No tenants file: every caller is {@code other}, without limits. */
    public static final TenantsConfig NONE = new TenantsConfig(false, Map.of(), Map.of(), Tenant.OTHER);

    public TenantsConfig {
        tenants = Collections.unmodifiableMap(new LinkedHashMap<>(tenants)); // the file's order, for logs and tests
        byKeyDigest = Map.copyOf(byKeyDigest);
        if (fallback == null) {
            throw new IllegalArgumentException("fallback tenant must be given");
        }
    }

    /**
     * @param authorization the request's {@code Authorization} header, or null
     * @param tenantHeader  the request's {@value #TENANT_HEADER} header, or null
     */
    public Tenant resolve(String authorization, String tenantHeader) {
        if (trustTenantHeader && tenantHeader != null) {
            Tenant named = tenants.get(tenantHeader.trim());
            if (named != null) {
                return named;
            }
        }
        String key = BearerKey.tokenOf(authorization);
        if (key != null && !byKeyDigest.isEmpty()) {
            Tenant owner = byKeyDigest.get(digest(key));
            if (owner != null) {
                return owner;
            }
        }
        return fallback;
    }

    /** The hex SHA-256 of an API key (what the config keeps instead of the key). */
    static String digest(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    @Override
    public String toString() {
        return "TenantsConfig[trustTenantHeader=" + trustTenantHeader + ", tenants=" + tenants.keySet() + "]";
    }
}
