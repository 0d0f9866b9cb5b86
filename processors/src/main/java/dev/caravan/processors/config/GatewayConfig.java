package dev.caravan.processors.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import dev.caravan.policies.PolicyConfig;

/**
 * The gateway's resolved, validated configuration: one string value per {@code caravan.*} key of {@link CaravanFlags}
 * (the row's default when nothing set it), plus any other {@code caravan.*} keys given (passed through to route
 * placeholders). Immutable and thread-safe.
 *
 * <p>Typed reads go through the table's rows ({@code config.getInt(CoreFlags.PORT)}), so a new setting needs no new
 * method here; the accessors below are shortcuts for the settings the gateway core reads. Every value is checked against
 * its row at construction ({@link CaravanFlag#check}: type, range, choices, special values, pattern), all rows in one
 * pass, and stored in its canonical spelling ({@code --pd-mode VLLM} reads back as {@code vllm}); the exception lists
 * every bad value with its flag, its property, the rule and the value, and every refused SGLang flag with why
 * ({@link CaravanFlag#refusal}). Accepted flags without effect here leave a line in {@link #warnings()}.
 *
 * <pre>{@code
 * GatewayConfig config = GatewayConfig.defaults()
 *         .with(CoreFlags.PORT, "0")
 *         .with(CoreFlags.WORKER_URLS, "http://127.0.0.1:8001,http://127.0.0.1:8002");
 * }</pre>
 */
public final class GatewayConfig {

    /** SGLang's default bind address. */
    public static final String DEFAULT_HOST = "0.0.0.0";
    /** SGLang's default port. */
    public static final int DEFAULT_PORT = 30000;
    /** SGLang's default body limit, 512 MiB. */
    public static final long DEFAULT_MAX_PAYLOAD_SIZE = 512L * 1024 * 1024;
    public static final String DEFAULT_LOG_LEVEL = "info";
    /** SGLang's default request-id headers. */
    public static final String DEFAULT_REQUEST_ID_HEADERS = "x-request-id,x-correlation-id,x-trace-id,request-id";
    /** Off: a response does not tell a client the engine's address or the policy's branch unless the operator asks. */
    public static final boolean DEFAULT_DECISION_HEADERS = false;
    /** {@code --dispatch}: run a request's route on the connection's event loop. */
    public static final String DISPATCH_EVENT_LOOP = "event-loop";
    /** {@code --dispatch}: run a request's route on a Vert.x worker thread. */
    public static final String DISPATCH_WORKER = "worker";
    /** Every built-in step is non-blocking; the thread hop of "worker" costs ~0.1-0.2 ms per request. */
    public static final String DEFAULT_DISPATCH = DISPATCH_EVENT_LOOP;
    /** 0 = one event loop per available core. */
    public static final int DEFAULT_SERVER_EVENT_LOOPS = 0;
    public static final String DEFAULT_POLICY = "cache_aware";
    /** SGLang's reqwest total timeout, 30 minutes: long generations must not be cut. */
    public static final long DEFAULT_REQUEST_TIMEOUT_SECS = 1800;
    /** SGLang's connect timeout. */
    public static final long DEFAULT_CONNECT_TIMEOUT_SECS = 10;
    /** Enough for 1,000 concurrent streams over a handful of workers; SGLang keeps 500 idle per host. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_WORKER = 1024;
    public static final long DEFAULT_LOAD_CHECK_INTERVAL_SECS = 5;
    public static final long DEFAULT_CONTROL_TIMEOUT_SECS = 5;
    /** Poll intervals an engine load stays trustworthy for (cache_aware's {@code --balance-engine-load}). */
    public static final long ENGINE_LOAD_AGE_POLLS = 2;
    /** Longer than any pause of a healthy engine between tokens, short enough to free a stuck slot. */
    public static final long DEFAULT_STREAM_IDLE_TIMEOUT_SECS = 300;
    /**
     * Ten minutes: the OpenAI Python client's own default timeout, so a client rarely waits longer for a non-streamed
     * answer; longer than a whole 8k-token generation at 15 tokens/s, so a healthy engine's answer is not cut.
     */
    public static final long DEFAULT_NON_STREAM_ATTEMPT_TIMEOUT_SECS = 600;
    /** SGLang's shutdown grace. */
    public static final long DEFAULT_SHUTDOWN_GRACE_PERIOD_SECS = 180;
    /** Deep enough for any tool schema; Jackson's own default is 1,000. */
    public static final int DEFAULT_MAX_JSON_NESTING_DEPTH = 128;

    /** SGLang's default engine type (its {@code RuntimeType} default). */
    public static final String DEFAULT_BACKEND = "sglang";
    /** SGLang's worker start-up wait. */
    public static final long DEFAULT_WORKER_STARTUP_TIMEOUT_SECS = 1800;
    public static final long DEFAULT_WORKER_STARTUP_CHECK_INTERVAL_SECS = 30;
    /** SGLang's metrics listener. */
    public static final int DEFAULT_PROMETHEUS_PORT = 29000;
    public static final String DEFAULT_PROMETHEUS_HOST = "0.0.0.0";
    /** SGLang's OTLP collector address (gRPC). */
    public static final String DEFAULT_OTLP_TRACES_ENDPOINT = "localhost:4317";

    /** Prefix of the policy option keys; the rest of the key is the SGLang flag name without dashes. */
    public static final String POLICY_PREFIX = "caravan.policy.";

    private final Map<String, String> values;
    /** The values given (not defaulted), so that a copy re-derives its defaults ({@code --sglang-defaults}). */
    private final Map<String, String> given;
    private final List<String> warnings;

    private GatewayConfig(Map<String, String> values) {
        Map<String, String> set = new LinkedHashMap<>();
        values.forEach((k, v) -> set.put(Objects.requireNonNull(k, "key"), v == null ? "" : v.trim()));
        Map<String, String> all = new LinkedHashMap<>();
        for (CaravanFlag f : CaravanFlags.all()) {
            all.put(f.key(), f.defaultValue());
        }
        all.putAll(set);
        if (Boolean.parseBoolean(all.get(CoreFlags.SGLANG_DEFAULTS.key()))) {
            applySglangDefaults(all, set);
        }
        List<String> errors = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (CaravanFlag f : CaravanFlags.all()) {
            String value = all.get(f.key());
            String error = f.check(value);
            if (error == null) {
                error = f.refusal(value);
            }
            if (error != null) {
                errors.add(error);
                continue;
            }
            all.put(f.key(), f.canonical(value));
            String warning = f.warning(value);
            if (warning != null) {
                notes.add(warning);
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", errors));
        }
        this.values = Collections.unmodifiableMap(all);
        this.given = Collections.unmodifiableMap(set);
        this.warnings = List.copyOf(notes);
    }

    /**
     * {@code --sglang-defaults}: every row whose default departs from SGLang's takes SGLang's value unless it was
     * given; a reference ({@code {{caravan.key}}}) copies the other row's resolved value.
     */
    private static void applySglangDefaults(Map<String, String> all, Map<String, String> set) {
        for (CaravanFlag f : CaravanFlags.all()) {
            CaravanFlag.SglangDefault sglang = f.sglang();
            if (sglang != null && !set.containsKey(f.key())) {
                String ref = sglang.reference();
                all.put(f.key(), ref == null ? sglang.value() : all.getOrDefault(ref, ""));
            }
        }
    }

    /** Every row at its default. */
    public static GatewayConfig defaults() {
        return new GatewayConfig(Map.of());
    }

    /**
     * A configuration from {@code caravan.*} properties; keys of other namespaces are ignored.
     *
     * @throws IllegalArgumentException listing every invalid value
     */
    public static GatewayConfig of(Map<String, String> properties) {
        Map<String, String> caravan = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (k.startsWith("caravan.")) {
                caravan.put(k, v);
            }
        });
        return new GatewayConfig(caravan);
    }

    /** A copy with one row set (an empty value resets it to "unset", not to the default). */
    public GatewayConfig with(CaravanFlag flag, String value) {
        return with(flag.key(), value);
    }

    /** A copy with one {@code caravan.*} key set. */
    public GatewayConfig with(String key, String value) {
        if (!key.startsWith("caravan.")) {
            throw new IllegalArgumentException("key must start with caravan., was '" + key + "'");
        }
        Map<String, String> copy = new LinkedHashMap<>(given);
        copy.put(key, value);
        return new GatewayConfig(copy);
    }

    /**
     * One line per accepted flag that has no effect here and was set to something other than its default
     * ({@link FlagSupport.Status#IGNORED}); the gateway logs them at start-up.
     */
    public List<String> warnings() {
        return warnings;
    }

    /** Every key and value, as Camel property placeholders see them ({@code {{caravan.port}}}). */
    public Map<String, String> asProperties() {
        return values;
    }

    public String get(CaravanFlag flag) {
        return values.get(flag.key());
    }

    /** The value of any {@code caravan.*} key, or null. */
    public String get(String key) {
        return values.get(key);
    }

    public boolean isSet(CaravanFlag flag) {
        return !get(flag).isEmpty();
    }

    public int getInt(CaravanFlag flag) {
        return Integer.parseInt(get(flag));
    }

    public long getLong(CaravanFlag flag) {
        return Long.parseLong(get(flag));
    }

    public double getDouble(CaravanFlag flag) {
        return Double.parseDouble(get(flag));
    }

    public boolean getBoolean(CaravanFlag flag) {
        return Boolean.parseBoolean(get(flag));
    }

    public Duration getSeconds(CaravanFlag flag) {
        return Duration.ofSeconds(getLong(flag));
    }

    /** A {@link FlagType#LIST} value as its elements (empty list when unset). */
    public List<String> getList(CaravanFlag flag) {
        String v = get(flag);
        if (v.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** A {@link FlagType#GROUPS} value: one list of values per occurrence of the flag. */
    public List<List<String>> getGroups(CaravanFlag flag) {
        return getList(flag).stream().map(g -> List.of(g.trim().split("\\s+"))).toList();
    }

    /**
     * The policy options ({@code caravan.policy.<option>} minus the name), keyed by SGLang flag name without dashes, plus
     * the derived {@code engine-load-max-age}: twice {@code --load-check-interval} (0 when polling is off), the age up to
     * which cache_aware's {@code --balance-engine-load} trusts a polled engine load, so one missed or slow poll is
     * tolerated and an engine that stops answering soon stops counting.
     */
    public Map<String, String> policyOptions() {
        Map<String, String> out = new TreeMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith(POLICY_PREFIX) && !k.equals(CoreFlags.POLICY_NAME.key()) && !v.isEmpty()) {
                out.put(k.substring(POLICY_PREFIX.length()), v);
            }
        });
        out.putIfAbsent(PolicyConfig.ENGINE_LOAD_MAX_AGE,
                String.valueOf(ENGINE_LOAD_AGE_POLLS * getLong(CoreFlags.LOAD_CHECK_INTERVAL)));
        return out;
    }

    public String host() {
        return get(CoreFlags.HOST);
    }

    public int port() {
        return getInt(CoreFlags.PORT);
    }

    public String policyName() {
        return get(CoreFlags.POLICY_NAME);
    }

    public List<String> workerUrls() {
        return getList(CoreFlags.WORKER_URLS);
    }

    public long maxPayloadSize() {
        return getLong(CoreFlags.MAX_PAYLOAD_SIZE);
    }

    /** The client API key, or null when the gateway is open. */
    public String apiKey() {
        String v = get(CoreFlags.API_KEY);
        return v.isEmpty() ? null : v;
    }

    /** The admin API key, or null (the admin API then takes the client key, if any). */
    public String adminApiKey() {
        String v = get(CoreFlags.ADMIN_API_KEY);
        return v.isEmpty() ? null : v;
    }

    public Duration requestTimeout() {
        return getSeconds(CoreFlags.REQUEST_TIMEOUT_SECS);
    }

    public boolean decisionHeaders() {
        return getBoolean(CoreFlags.DECISION_HEADERS);
    }

    /** Event loops serving HTTP: the configured number, or one per available core when 0. */
    public int serverEventLoops() {
        int n = getInt(CoreFlags.SERVER_EVENT_LOOPS);
        return n > 0 ? n : Runtime.getRuntime().availableProcessors();
    }

    public boolean dispatchOnEventLoop() {
        return get(CoreFlags.DISPATCH).equals(DISPATCH_EVENT_LOOP);
    }

    @Override
    public String toString() {
        Map<String, String> shown = new LinkedHashMap<>(values);
        for (CaravanFlag f : CaravanFlags.all()) {
            if (f.secret()) {
                shown.computeIfPresent(f.key(), (k, v) -> v.isEmpty() ? v : "****");
            }
        }
        return "GatewayConfig" + shown;
    }
}
