package dev.caravan.processors.config;

import java.util.List;

/**
 * The headings rows are listed under in {@code --help}, {@code docs/configuration.md} and
 * {@code config/application.properties}, in the order the docs show them. A row names its section when it is declared
 * ({@link FlagRows#row}); rows of several features may share one, and a section not listed in {@link #ORDER} comes
 * after the listed ones.
 */
public final class Sections {

    public static final String SERVER = "Server";
    public static final String WORKERS = "Workers";
    public static final String POLICY = "Routing policy";
    public static final String UPSTREAM = "Upstream (data plane)";
    public static final String CONTROL = "Control plane";
    public static final String DISCOVERY = "Kubernetes service discovery";
    public static final String HEALTH = "Health checks";
    public static final String BREAKER = "Circuit breakers";
    public static final String RETRY = "Retries";
    public static final String ADMISSION = "Admission control";
    public static final String TENANTS = "Tenants and flow control";
    public static final String LIFECYCLE = "Timeouts and shutdown";
    public static final String SECURITY = "Security and input limits";
    public static final String PD = "Prefill/decode disaggregation";
    public static final String KV = "KV events and kv_aware";
    public static final String SYNC = "Replica sync";
    public static final String TOKENS = "Prompt tokens (the engine's own)";
    public static final String OBSERVABILITY = "Metrics, tracing and logs";
    public static final String TLS = "TLS";

    /** The order of the sections in the docs. */
    static final List<String> ORDER = List.of(SERVER, WORKERS, POLICY, UPSTREAM, CONTROL, DISCOVERY, HEALTH, BREAKER,
            RETRY, ADMISSION, TENANTS, LIFECYCLE, SECURITY, PD, KV, SYNC, TOKENS, OBSERVABILITY, TLS);

    private Sections() {
    }
}
