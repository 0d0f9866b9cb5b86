package dev.caravan.processors.config;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

/**
 * The rows of {@link CaravanFlags} for SGLang router flags that Caravan accepts without implementing them, so an SGLang
 * command line (sglang-router 0.3.2, both its Python launcher and its Rust binary, docs/sglang-compat.md) never stops
 * at "unknown flag". Two groups:
 * <ul>
 *   <li><b>accepted and ignored</b>: no effect on routing or safety here; a value other than the default logs one
 *       start-up warning naming the flag ({@link CaravanFlag#warning});</li>
 *   <li><b>refused</b>: they change security or response content; a value other than the default stops start-up with
 *       a message naming the flag and why ({@link CaravanFlag#refusal}).</li>
 * </ul>
 * Types and defaults are SGLang's Python launcher's, so its values parse; keys are {@code caravan.sglang.<name>}.
 * The table lists them after every feature's rows.
 */
final class SglangOnlyFlags {

    private static final FlagRows ROWS = new FlagRows();

    static final String IGNORED = "SGLang flags accepted and ignored";
    static final String REFUSED = "SGLang flags refused";

    private static final String HISTORY = "configures a conversation-history store, which Caravan does not have "
            + "(responses are stored by the engines; see --history-backend)";
    private static final String TOKENIZER_CACHE = "Caravan's router does not tokenize through SGLang's tokenizer cache";
    private static final String CONTROL_PLANE_AUTH = "control-plane authentication (API keys with roles, JWT/OIDC) "
            + "is not implemented; use --admin-api-key for the admin API";
    private static final String MESH = "SGLang's HA mesh protocol is not implemented; Caravan replicas share routing "
            + "state through their own replica sync";

    // ---- accepted and ignored ---------------------------------------------------------------------------------------
    static final CaravanFlag MINI_LB = ROWS.row("--mini-lb", key("mini-lb"), SWITCH, IGNORED).defaultValue(false)
            .ignored("MiniLB is the Python launcher's debugging load balancer; Caravan is the load balancer")
            .describe("SGLang: use the Python MiniLB instead of the Rust router.");
    static final CaravanFlag ENABLE_IGW = ROWS.row("--enable-igw", key("enable-igw"), SWITCH, IGNORED).defaultValue(false)
            .ignored("Caravan always routes by model when workers declare one (docs/configuration.md, Models)")
            .describe("SGLang: multi-model (inference gateway) mode.");
    static final CaravanFlag TOKENIZER_CACHE_ENABLE_L0 = ROWS.row("--tokenizer-cache-enable-l0",
            key("tokenizer-cache-enable-l0"), SWITCH, IGNORED).defaultValue(false)
            .ignored(TOKENIZER_CACHE)
            .describe("SGLang: whole-string tokenizer cache.");
    static final CaravanFlag TOKENIZER_CACHE_L0_MAX_ENTRIES = ROWS.row("--tokenizer-cache-l0-max-entries",
            key("tokenizer-cache-l0-max-entries"), INT, IGNORED).defaultValue(10_000)
            .ignored(TOKENIZER_CACHE)
            .describe("SGLang: entries of the L0 tokenizer cache.");
    static final CaravanFlag TOKENIZER_CACHE_ENABLE_L1 = ROWS.row("--tokenizer-cache-enable-l1",
            key("tokenizer-cache-enable-l1"), SWITCH, IGNORED).defaultValue(false)
            .ignored(TOKENIZER_CACHE)
            .describe("SGLang: prefix-matching tokenizer cache.");
    static final CaravanFlag TOKENIZER_CACHE_L1_MAX_MEMORY = ROWS.row("--tokenizer-cache-l1-max-memory",
            key("tokenizer-cache-l1-max-memory"), LONG, IGNORED).defaultValue(50L * 1024 * 1024)
            .ignored(TOKENIZER_CACHE)
            .describe("SGLang: bytes of the L1 tokenizer cache.");
    static final CaravanFlag HISTORY_BACKEND = ROWS.row("--history-backend", key("history-backend"), STRING, IGNORED)
            .defaultValue("memory").oneOf("memory", "none", "oracle", "postgres", "redis")
            .ignored("Caravan stores no conversation history: /v1/responses are stored by the engines, and a request "
                    + "with previous_response_id goes back to the engine that stored it")
            .refusing("external history stores are not implemented", "oracle", "postgres", "redis")
            .describe("SGLang: where the Responses and Conversations APIs keep their history.");
    static final CaravanFlag ORACLE_WALLET_PATH = ROWS.row("--oracle-wallet-path", key("oracle-wallet-path"), STRING,
            IGNORED).ignored(HISTORY).describe("SGLang: Oracle ATP wallet directory.");
    static final CaravanFlag ORACLE_TNS_ALIAS = ROWS.row("--oracle-tns-alias", key("oracle-tns-alias"), STRING, IGNORED)
            .ignored(HISTORY).describe("SGLang: Oracle TNS alias.");
    static final CaravanFlag ORACLE_CONNECT_DESCRIPTOR = ROWS.row("--oracle-connect-descriptor",
            key("oracle-connect-descriptor"), STRING, IGNORED).alias("--oracle-dsn").secret()
            .ignored(HISTORY).describe("SGLang: Oracle connection descriptor (the Rust binary's --oracle-dsn).");
    static final CaravanFlag ORACLE_USERNAME = ROWS.row("--oracle-username", key("oracle-username"), STRING, IGNORED)
            .alias("--oracle-user").ignored(HISTORY).describe("SGLang: Oracle user (the Rust binary's --oracle-user).");
    static final CaravanFlag ORACLE_PASSWORD = ROWS.row("--oracle-password", key("oracle-password"), STRING, IGNORED)
            .secret().ignored(HISTORY).describe("SGLang: Oracle password.");
    static final CaravanFlag ORACLE_POOL_MIN = ROWS.row("--oracle-pool-min", key("oracle-pool-min"), INT, IGNORED)
            .defaultValue(1).ignored(HISTORY).describe("SGLang: smallest Oracle connection pool.");
    static final CaravanFlag ORACLE_POOL_MAX = ROWS.row("--oracle-pool-max", key("oracle-pool-max"), INT, IGNORED)
            .defaultValue(16).ignored(HISTORY).describe("SGLang: largest Oracle connection pool.");
    static final CaravanFlag ORACLE_POOL_TIMEOUT_SECS = ROWS.row("--oracle-pool-timeout-secs",
            key("oracle-pool-timeout-secs"), INT, IGNORED)
            .defaultValue(30).ignored(HISTORY).describe("SGLang: Oracle pool timeout in seconds.");
    static final CaravanFlag POSTGRES_DB_URL = ROWS.row("--postgres-db-url", key("postgres-db-url"), STRING, IGNORED)
            .secret().ignored(HISTORY).describe("SGLang: PostgreSQL connection URL.");
    static final CaravanFlag POSTGRES_POOL_MAX = ROWS.row("--postgres-pool-max", key("postgres-pool-max"), INT, IGNORED)
            .alias("--postgres-pool-max-size").defaultValue(16).ignored(HISTORY)
            .describe("SGLang: largest PostgreSQL pool (the Rust binary's --postgres-pool-max-size).");
    static final CaravanFlag REDIS_URL = ROWS.row("--redis-url", key("redis-url"), STRING, IGNORED)
            .secret().ignored(HISTORY).describe("SGLang: Redis connection URL.");
    static final CaravanFlag REDIS_POOL_MAX = ROWS.row("--redis-pool-max", key("redis-pool-max"), INT, IGNORED)
            .alias("--redis-pool-max-size").defaultValue(16).ignored(HISTORY)
            .describe("SGLang: largest Redis pool (the Rust binary's --redis-pool-max-size).");
    static final CaravanFlag REDIS_RETENTION_DAYS = ROWS.row("--redis-retention-days", key("redis-retention-days"), INT,
            IGNORED).defaultValue(30).ignored(HISTORY).describe("SGLang: days Redis keeps history (-1: for ever).");
    static final CaravanFlag DISABLE_AUDIT_LOGGING = ROWS.row("--disable-audit-logging", key("disable-audit-logging"),
            SWITCH, IGNORED).defaultValue(false)
            .ignored("Caravan keeps no control-plane audit log to disable")
            .describe("SGLang (Rust binary): no audit log of control-plane operations.");

    // ---- refused -----------------------------------------------------------------------------------------------------
    static final CaravanFlag REASONING_PARSER = ROWS.row("--reasoning-parser", key("reasoning-parser"), STRING, REFUSED)
            .refused("it rewrites responses (reasoning split out); Caravan passes the engine's response through, so "
                    + "start the engine with its own --reasoning-parser")
            .describe("SGLang: parser separating reasoning from content.");
    static final CaravanFlag TOOL_CALL_PARSER = ROWS.row("--tool-call-parser", key("tool-call-parser"), STRING, REFUSED)
            .refused("it rewrites responses (tool calls parsed out); Caravan passes the engine's response through, so "
                    + "start the engine with its own --tool-call-parser")
            .describe("SGLang: parser extracting tool calls.");
    static final CaravanFlag MCP_CONFIG_PATH = ROWS.row("--mcp-config-path", key("mcp-config-path"), STRING, REFUSED)
            .refused("MCP tool execution by the gateway is not implemented")
            .describe("SGLang: MCP servers the Responses API may call.");
    static final CaravanFlag ENABLE_WASM = ROWS.row("--enable-wasm", key("enable-wasm"), SWITCH, REFUSED)
            .defaultValue(false)
            .refused("WASM middleware, which may rewrite requests and responses, is not implemented")
            .describe("SGLang (Rust binary): WebAssembly middleware modules.");
    static final CaravanFlag CONTROL_PLANE_API_KEYS = ROWS.row("--control-plane-api-keys", key("control-plane-api-keys"),
            LIST, REFUSED).secret()
            .refused(CONTROL_PLANE_AUTH)
            .describe("SGLang: control-plane API keys id:name:role:key.");
    static final CaravanFlag CONTROL_PLANE_AUDIT_ENABLED = ROWS.row("--control-plane-audit-enabled",
            key("control-plane-audit-enabled"), SWITCH, REFUSED).defaultValue(false)
            .refused("the control-plane audit log is not implemented")
            .describe("SGLang: audit log of control-plane operations.");
    static final CaravanFlag JWT_ISSUER = ROWS.row("--jwt-issuer", key("jwt-issuer"), STRING, REFUSED)
            .refused(CONTROL_PLANE_AUTH).describe("SGLang: OIDC issuer for JWT authentication.");
    static final CaravanFlag JWT_AUDIENCE = ROWS.row("--jwt-audience", key("jwt-audience"), STRING, REFUSED)
            .refused(CONTROL_PLANE_AUTH).describe("SGLang: expected JWT audience.");
    static final CaravanFlag JWT_JWKS_URI = ROWS.row("--jwt-jwks-uri", key("jwt-jwks-uri"), STRING, REFUSED)
            .refused(CONTROL_PLANE_AUTH).describe("SGLang: JWKS URI.");
    static final CaravanFlag JWT_ROLE_CLAIM = ROWS.row("--jwt-role-claim", key("jwt-role-claim"), STRING, REFUSED)
            .defaultValue("roles")
            .refused(CONTROL_PLANE_AUTH).describe("SGLang (Rust binary): JWT claim holding the role.");
    static final CaravanFlag JWT_ROLE_MAPPING = ROWS.row("--jwt-role-mapping", key("jwt-role-mapping"), LIST, REFUSED)
            .refused(CONTROL_PLANE_AUTH).describe("SGLang: identity-provider role = gateway role.");
    static final CaravanFlag ENABLE_MESH = ROWS.row("--enable-mesh", key("enable-mesh"), SWITCH, REFUSED)
            .defaultValue(false)
            .refused(MESH).describe("SGLang (Rust binary): HA mesh between router replicas.");
    static final CaravanFlag MESH_SERVER_NAME = ROWS.row("--mesh-server-name", key("mesh-server-name"), STRING, REFUSED)
            .refused(MESH).describe("SGLang (Rust binary): this replica's mesh name.");
    static final CaravanFlag MESH_HOST = ROWS.row("--mesh-host", key("mesh-host"), STRING, REFUSED).defaultValue("0.0.0.0")
            .refused(MESH).describe("SGLang (Rust binary): mesh listener address.");
    static final CaravanFlag MESH_PORT = ROWS.row("--mesh-port", key("mesh-port"), INT, REFUSED).defaultValue(39527)
            .refused(MESH).describe("SGLang (Rust binary): mesh listener port.");
    static final CaravanFlag MESH_PEER_URLS = ROWS.row("--mesh-peer-urls", key("mesh-peer-urls"), LIST, REFUSED)
            .refused(MESH).describe("SGLang (Rust binary): mesh peers.");

    private SglangOnlyFlags() {
    }

    private static String key(String name) {
        return "caravan.sglang." + name;
    }

    /** The rows, in declaration order. */
    static List<CaravanFlag> all() {
        return ROWS.all();
    }
}
