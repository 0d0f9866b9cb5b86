package dev.caravan.processors.config;

import static dev.caravan.processors.config.FlagType.BOOLEAN;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

/**
 * The core's rows of the flag table: the settings of the parts every feature builds on — the gateway's server, the
 * static workers, the policy, the request deadline, the load poll, the keys, TLS — read by {@link GatewayConfig} and the
 * assembler ({@code dev.caravan.gateway.GatewayBeans}), and the switches of the optional modules
 * ({@link #SERVICE_DISCOVERY}, {@link #SYNC_MODE}), kept here so that using one without its module fails with a message
 * naming the artifact. Every other row belongs to a feature ({@code dev.caravan.processors.feature.Feature}).
 */
public final class CoreFlags {

    private static final FlagRows ROWS = new FlagRows();

    /** Log4j levels; SGLang's older launchers also said {@code warning} and {@code critical}. */
    private static final Choices LOG_LEVELS = Choices.of("trace", "debug", "info", "warn", "error")
            .withAlias("warning", "warn").withAlias("critical", "error");

    public static final CaravanFlag HOST = ROWS.row("--host", "caravan.host", STRING, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_HOST)
            .describe("Address the gateway's HTTP server binds.");
    public static final CaravanFlag PORT = ROWS.row("--port", "caravan.port", INT, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_PORT).range(0, 65535)
            .describe("Port of the gateway's HTTP server (inference, admin API, and /metrics as --port-metrics says); "
                    + "0 picks a free one.");
    public static final CaravanFlag MAX_PAYLOAD_SIZE = ROWS.row("--max-payload-size", "caravan.max-payload-size",
            LONG, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_MAX_PAYLOAD_SIZE).min(1)
            .describe("Largest request body accepted, in bytes; larger bodies get 413.");
    public static final CaravanFlag API_KEY = ROWS.row("--api-key", "caravan.api-key", STRING, Sections.SERVER).secret()
            .describe("When set, clients must send 'Authorization: Bearer <key>' (else 401), and workers registered "
                    + "without their own api_key are called with it.");
    public static final CaravanFlag LOG_LEVEL = ROWS.row("--log-level", "caravan.log-level", STRING, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_LOG_LEVEL).oneOf(LOG_LEVELS)
            .describe("Log level of the gateway.");
    public static final CaravanFlag DECISION_HEADERS = ROWS.row("--decision-headers", "caravan.decision-headers",
            BOOLEAN, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_DECISION_HEADERS)
            .describe("Add X-Caravan-Worker (the engine's URL) and X-Caravan-Decision (policy:branch) to inference "
                    + "responses: for tests, demos and trusted clients, since they show clients the engines' addresses.");
    public static final CaravanFlag SERVER_EVENT_LOOPS = ROWS.row("--server-event-loops", "caravan.server-event-loops",
            INT, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_SERVER_EVENT_LOOPS).range(0, 256)
            .describe("Vert.x event loops that accept and serve connections (each with its upstream connections); 0 = "
                    + "one per core.");
    public static final CaravanFlag DISPATCH = ROWS.row("--dispatch", "caravan.dispatch", STRING, Sections.SERVER)
            .defaultValue(GatewayConfig.DEFAULT_DISPATCH)
            .oneOf(GatewayConfig.DISPATCH_EVENT_LOOP, GatewayConfig.DISPATCH_WORKER)
            .describe("Where a request's route runs until it goes asynchronous: 'event-loop' (the connection's event "
                    + "loop; no thread hop; every step must be non-blocking, as the built-in ones are) or 'worker' (a "
                    + "Vert.x worker thread, released once the request is forwarded; for routes with blocking steps).");
    public static final CaravanFlag CAMEL_TUNING = ROWS.row("--camel-tuning", "caravan.camel-tuning", BOOLEAN,
                    Sections.SERVER)
            .defaultValue(true)
            .describe("Run the request path with the gateway's Camel tuning (fused steps, hashed request headers, "
                    + "event-loop timers, deferred route ends, see docs/design/camel-tuning.md); false runs stock Camel.");
    public static final CaravanFlag ROUTES = ROWS.row("--routes", "caravan.routes", STRING, Sections.SERVER)
            .describe("Directory of *.camel.yaml routes to load instead of the built-in ones; edits there reload "
                    + "live.");
    public static final CaravanFlag CONFIG = ROWS.row("--config", "caravan.config", STRING, Sections.SERVER)
            .describe("Properties file with caravan.* (and camel.*) settings; see 'Precedence'.");
    public static final CaravanFlag SGLANG_DEFAULTS = ROWS.row("--sglang-defaults", "caravan.sglang-defaults", SWITCH,
            Sections.SERVER)
            .describe("Use SGLang's default for every setting whose Caravan default differs (listed under 'Defaults "
                    + "that differ from SGLang'); settings given explicitly keep their value.");
    public static final CaravanFlag CORS_ALLOWED_ORIGINS = ROWS.row("--cors-allowed-origins",
            "caravan.cors-allowed-origins", LIST, Sections.SERVER)
            .describe("Origins browsers may call the gateway from (CORS: GET, POST, OPTIONS; Content-Type and "
                    + "Authorization; X-Request-Id exposed). Empty: any origin, method and header, as SGLang.");
    public static final CaravanFlag WORKER_URLS = ROWS.row("--worker-urls", "caravan.worker-urls",
            LIST, Sections.WORKERS)
            .describe("Engine URLs registered at start (space-separated on the command line, comma-separated as a "
                    + "property).");
    public static final CaravanFlag POLICY_NAME = ROWS.row("--policy", "caravan.policy.name", STRING, Sections.POLICY)
            .defaultValue(GatewayConfig.DEFAULT_POLICY).oneOf(FlagRows.POLICY_NAMES)
            .describe("Load-balancing policy (kv_aware: precise, from KV events). One instance per model.");
    public static final CaravanFlag REQUEST_TIMEOUT_SECS = ROWS.row("--request-timeout-secs", "caravan.request-timeout-secs",
            LONG, Sections.UPSTREAM)
            .defaultValue(GatewayConfig.DEFAULT_REQUEST_TIMEOUT_SECS).range(1, FlagRows.MAX_SECONDS)
            .describe("End-to-end limit per request, in seconds, from its arrival (queueing and retries included): "
                    + "504 before the response starts; a stream that started is ended (SSE: with a final error "
                    + "event).");
    public static final CaravanFlag LOAD_CHECK_INTERVAL = ROWS.row("--load-check-interval", "caravan.load-check-interval",
            LONG, Sections.CONTROL)
            .defaultValue(GatewayConfig.DEFAULT_LOAD_CHECK_INTERVAL_SECS).range(0, FlagRows.MAX_SECONDS)
            .describe("Seconds between polls of each worker's /get_load and /metrics (engine queue, KV usage); 0 "
                    + "disables.");
    public static final CaravanFlag SERVICE_DISCOVERY = ROWS.row("--service-discovery", "caravan.discovery.enabled",
            SWITCH, Sections.DISCOVERY)
            .defaultValue(false)
            .describe("Discover workers from Kubernetes pods: a pod is added when Running and Ready and drained when "
                    + "it stops being ready, stops matching, terminates or disappears.");
    public static final CaravanFlag ADMIN_API_KEY = ROWS.row("--admin-api-key", "caravan.admin-api-key",
            STRING, Sections.SECURITY)
            .secret()
            .describe("When set, the admin API (/workers*, /flush_cache, /get_loads, legacy add/remove/list) requires "
                    + "'Authorization: Bearer <admin key>' instead of --api-key.");
    /** {@code --sync none}: every replica routes alone, exactly as a single gateway. */
    public static final String SYNC_NONE = "none";
    /** {@code --sync hazelcast}: an embedded Hazelcast member shares the routing state (module caravan-sync). */
    public static final String SYNC_HAZELCAST = "hazelcast";
    public static final CaravanFlag SYNC_MODE = ROWS.row("--sync", "caravan.sync.mode", STRING, Sections.SYNC)
            .defaultValue(SYNC_NONE).oneOf(SYNC_NONE, SYNC_HAZELCAST)
            .describe("Share routing state with the gateway's other replicas: 'none' (each routes alone, as one "
                    + "gateway) or 'hazelcast' (an embedded member; needs dev.caravan:caravan-sync).");
    public static final CaravanFlag LOG_DIR = ROWS.row("--log-dir", "caravan.log-dir", STRING, Sections.OBSERVABILITY)
            .differs("the file is caravan.log (SGLang: smg); an application embedding the gateway keeps its own "
                    + "logging")
            .describe("./caravan run: also write the log to DIR/caravan.log, rolled over daily.");
    public static final CaravanFlag TLS_CERT_PATH = ROWS.row("--tls-cert-path", "caravan.tls.cert-path",
            STRING, Sections.TLS)
            .describe("PEM certificate (chain) of the gateway's HTTPS listener on --port; with --tls-key-path.");
    public static final CaravanFlag TLS_KEY_PATH = ROWS.row("--tls-key-path", "caravan.tls.key-path",
            STRING, Sections.TLS)
            .describe("PEM private key (PKCS#8 or PKCS#1) of the HTTPS listener.");
    public static final CaravanFlag CLIENT_CERT_PATH = ROWS.row("--client-cert-path", "caravan.tls.client-cert-path",
            STRING, Sections.TLS)
            .describe("PEM certificate the gateway presents to https:// workers (mTLS): inference, control calls and "
                    + "health probes; with --client-key-path.");
    public static final CaravanFlag CLIENT_KEY_PATH = ROWS.row("--client-key-path", "caravan.tls.client-key-path",
            STRING, Sections.TLS)
            .describe("PEM private key of the client certificate.");
    public static final CaravanFlag CA_CERT_PATHS = ROWS.row("--ca-cert-paths", "caravan.tls.ca-cert-paths",
            LIST, Sections.TLS)
            .describe("PEM CA certificates that https:// workers' certificates must chain to (unset: the JVM's "
                    + "trusted CAs).");


    private CoreFlags() {
    }

    /** The core rows, in declaration order. */
    static List<CaravanFlag> all() {
        return ROWS.all();
    }
}
