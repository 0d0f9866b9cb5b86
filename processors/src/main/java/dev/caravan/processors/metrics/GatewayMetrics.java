package dev.caravan.processors.metrics;

import static dev.caravan.processors.CaravanExchangeProperties.CLIENT_REQUEST;
import static dev.caravan.processors.CaravanExchangeProperties.ERROR_CODE;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.TTFB_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.Exchange;

import dev.caravan.components.http.RequestObserver;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;
import dev.caravan.processors.MeterKey;
import dev.caravan.processors.forward.Usage;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * The gateway's own meters (Prometheus names in parentheses), all on one Micrometer registry:
 * <ul>
 *   <li>requests by route path and status ({@code caravan_requests_total{endpoint,status}}), their duration until the
 *       response ended ({@code caravan_request_duration_seconds{endpoint}}) and, for forwarded requests, the time to the
 *       response head ({@code caravan_time_to_first_byte_seconds{endpoint}}) and how the forward ended
 *       ({@code caravan_forward_outcomes_total{outcome}});</li>
 *   <li>policy decisions by branch ({@code caravan_policy_decisions_total{policy,branch}});</li>
 *   <li>per worker: in-flight requests ({@code caravan_worker_requests_active}), health ({@code caravan_worker_healthy}),
 *       and the engines' own token counts read from {@code usage}/{@code meta_info}
 *       ({@code caravan_prompt_tokens_total}, {@code caravan_cached_tokens_total}), so the fleet's real prefix-cache hit
 *       rate is {@code cached / prompt};</li>
 *   <li>tree size per model and worker ({@code caravan_tree_chars{model,worker}}), refreshed at each scrape.</li>
 * </ul>
 * Per-worker gauges are registered when a worker joins and removed when it leaves. Thread-safe.
 *
 * <p>SGLang's router names ({@code smg_*}, its {@code observability/metrics.rs} at 0.3.2) are exported beside these
 * where they mean the same, with SGLang's labels, so dashboards and alerts written for SGLang's router keep working:
 * {@code smg_http_requests_total{method,path}}, {@code smg_http_request_duration_seconds{method,path}},
 * {@code smg_http_responses_total{status_code,error_code}}, {@code smg_worker_requests_active{worker}},
 * {@code smg_worker_health{worker}}, {@code smg_worker_selection_total{worker_type,connection_mode,model,policy}} and
 * the branch counters of manual, consistent_hashing and prefix_hash ({@code smg_<policy>_policy_branch_total{branch}}).
 * The breaker, retry and health-check twins are registered by their own meters' classes.
 */
public final class GatewayMetrics implements RequestObserver, Consumer<Decision>, WorkerListener {

    /**
     * SGLang's default buckets of its {@code *_duration_seconds} histograms (0.001 s to 240 s), used for the request
     * duration and time to first byte unless {@code --prometheus-duration-buckets} says otherwise.
     */
    public static final List<Duration> DEFAULT_DURATION_BUCKETS = seconds(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
            0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0);

    private final Duration[] latencyBuckets;

    private final MeterRegistry registry;
    private final Map<String, List<Meter>> workerMeters = new ConcurrentHashMap<>();
    // Micrometer's builder().register() allocates an id and sorts tags on every call; the hot path looks meters up here.
    private final Map<MeterKey, Meter> cache = new ConcurrentHashMap<>();
    private final Map<String, EndpointMeters> endpoints = new ConcurrentHashMap<>();
    private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();
    private final Map<String, Counter> promptTokens = new ConcurrentHashMap<>();
    private final Map<String, Counter> cachedTokens = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Counter[]>> decisionMeters = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Map<String, Counter>>> selections = new ConcurrentHashMap<>();
    private final java.util.function.BiFunction<String, String, Counter[]> decisionCounters = this::decisionCounters;
    private final MultiGauge treeChars;
    private final List<PolicyRegistry> policies = new CopyOnWriteArrayList<>();

    public GatewayMetrics(MeterRegistry registry) {
        this(registry, DEFAULT_DURATION_BUCKETS);
    }

    /** @param durationBuckets bucket bounds of the duration histograms ({@code --prometheus-duration-buckets}) */
    public GatewayMetrics(MeterRegistry registry, List<Duration> durationBuckets) {
        if (durationBuckets.isEmpty()) {
            throw new IllegalArgumentException("durationBuckets must not be empty");
        }
        this.latencyBuckets = durationBuckets.toArray(Duration[]::new);
        this.registry = registry;
        this.treeChars = MultiGauge.builder("caravan.tree.chars")
                .description("Characters each worker holds in a model's approximate radix tree")
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    private static List<Duration> seconds(double... values) {
        List<Duration> out = new ArrayList<>(values.length);
        for (double v : values) {
            out.add(Duration.ofNanos(Math.round(v * 1e9)));
        }
        return List.copyOf(out);
    }

    /** Enables {@code caravan_tree_chars} for these policies (called once per pool: regular, and P/D prefill and decode). */
    public void trackPolicies(PolicyRegistry policies) {
        this.policies.add(policies);
    }

    @Override
    public void onRequestComplete(Exchange exchange, String endpoint, int status, long durationNanos) {
        EndpointMeters e = endpointMeters(endpoint);
        e.requests(status).increment();
        e.duration().record(durationNanos, TimeUnit.NANOSECONDS);
        if (exchange == null) {
            recordSglangHttp(null, e, status, durationNanos);
            return;
        }
        recordSglangHttp(exchange, e, status, durationNanos);
        Long ttfb = TTFB_NANOS.get(exchange);
        if (ttfb != null) {
            e.ttfb().record(ttfb, TimeUnit.NANOSECONDS);
        }
        String outcome = OUTCOME.get(exchange);
        if (outcome != null) {
            Counter c = outcomes.get(outcome);
            (c != null ? c : outcomes.computeIfAbsent(outcome, this::outcomeCounter)).increment();
        }
        Usage usage = Usage.PROPERTY.get(exchange);
        Worker worker = WORKER.get(exchange);
        if (usage != null && worker != null && usage.hasPromptTokens()) {
            String url = worker.url();
            Counter p = promptTokens.get(url);
            (p != null ? p : promptTokens.computeIfAbsent(url, this::promptTokensCounter))
                    .increment(usage.promptTokens());
            Counter c = cachedTokens.get(url);
            (c != null ? c : cachedTokens.computeIfAbsent(url, this::cachedTokensCounter))
                    .increment(Math.max(0, usage.cachedTokens()));
        }
    }

    private Counter outcomeCounter(String outcome) {
        return counter(MeterKey.of("o", outcome), () -> Counter.builder("caravan.forward.outcomes")
                .description("How forwarded requests ended").tag("outcome", outcome).register(registry));
    }

    private Counter promptTokensCounter(String url) {
        return counter(MeterKey.of("p", url), () -> Counter.builder("caravan.prompt.tokens")
                .description("Prompt tokens the engines reported").tag("worker", url).register(registry));
    }

    private Counter cachedTokensCounter(String url) {
        return counter(MeterKey.of("c", url), () -> Counter.builder("caravan.cached.tokens")
                .description("Prompt tokens the engines served from their prefix cache").tag("worker", url)
                .register(registry));
    }

    /** SGLang's layer-1 HTTP meters: requests and their duration by method and path, responses by status and code. */
    private void recordSglangHttp(Exchange exchange, EndpointMeters e, int status, long durationNanos) {
        String method = exchange == null ? null : methodOf(exchange);
        MethodMeters byMethod = e.method(method == null ? "OTHER" : method);
        byMethod.requests().increment();
        byMethod.duration().record(durationNanos, TimeUnit.NANOSECONDS);
        String code = exchange == null ? null : ERROR_CODE.get(exchange);
        (code == null || code.isEmpty() ? e.responses(status) : responses(code, status)).increment();
    }

    /** The client's HTTP method: from its request when the exchange has it (no look-up in the header map). */
    private static String methodOf(Exchange exchange) {
        HttpServerRequest request = CLIENT_REQUEST.get(exchange);
        return request != null ? request.method().name() : exchange.getIn().getHeader(Exchange.HTTP_METHOD, String.class);
    }

    Counter responses(String c, int status) {
        return counter(MeterKey.of("sh", c, status), () -> Counter.builder("smg.http.responses")
                .description("Total HTTP responses by status_code and error_code (SGLang's name)")
                .tags("status_code", Integer.toString(status), "error_code", c).register(registry));
    }

    Counter requests(String endpoint, int status) {
        return counter(MeterKey.of("r", endpoint, status), () -> Counter.builder("caravan.requests")
                .description("Requests answered, by route path and HTTP status")
                .tags("endpoint", endpoint, "status", Integer.toString(status)).register(registry));
    }

    MethodMeters methodMeters(String m, String path) {
        Counter requests = counter(MeterKey.of("sr", m, path), () -> Counter.builder("smg.http.requests")
                .description("Total HTTP requests by method and path (SGLang's name)")
                .tags("method", m, "path", path).register(registry));
        Timer duration = (Timer) cache.computeIfAbsent(MeterKey.of("sd", m, path), k -> Timer.builder(
                "smg.http.request.duration").description("HTTP request duration by method and path (SGLang's name)")
                .tags("method", m, "path", path).serviceLevelObjectives(latencyBuckets).register(registry));
        return new MethodMeters(m, requests, duration);
    }

    private EndpointMeters endpointMeters(String endpoint) {
        EndpointMeters e = endpoints.get(endpoint);
        return e != null ? e : endpoints.computeIfAbsent(endpoint, k -> new EndpointMeters(this, k));
    }

    private Counter counter(MeterKey key, java.util.function.Supplier<Counter> create) {
        Meter m = cache.get(key);
        return (Counter) (m != null ? m : cache.computeIfAbsent(key, k -> create.get()));
    }

    Timer timer(String name, String description, String endpoint) {
        MeterKey key = MeterKey.of(name, endpoint);
        Meter m = cache.get(key);
        return (Timer) (m != null ? m : cache.computeIfAbsent(key, k -> Timer.builder(name).description(description)
                .tag("endpoint", endpoint).serviceLevelObjectives(latencyBuckets).register(registry)));
    }

    /** Counts one policy decision (and, under SGLang's names, the selection and the branches SGLang counts). */
    @Override
    public void accept(Decision decision) {
        String policy = decision.policy();
        String branch = decision.branch();
        Counter[] branchCounters = nested(decisionMeters, policy, branch, decisionCounters);
        branchCounters[0].increment();
        Worker w = decision.worker();
        if (w != null) {
            String role = w.role().wireName();
            String model = w.modelId();
            Counter c = nested(selections, policy, role, model);
            (c != null ? c : selection(role, model, policy)).increment();
        }
        if (branchCounters[1] != null) {
            branchCounters[1].increment();
        }
    }

    /** {@code caravan_policy_decisions_total} and, for the policies SGLang counts, its branch counter (else null). */
    private Counter[] decisionCounters(String policy, String branch) {
        Counter decisions = counter(MeterKey.of("d", policy, branch), () -> Counter.builder("caravan.policy.decisions")
                .description("Policy decisions by branch")
                .tags("policy", policy, "branch", branch).register(registry));
        Counter sglang = !SGLANG_BRANCH_POLICIES.contains(policy) ? null : counter(MeterKey.of("sb", policy, branch),
                () -> Counter.builder("smg." + policy + ".policy.branch")
                        .description("Branches of the " + policy + " policy (SGLang's name)")
                        .tag("branch", branch).register(registry));
        return new Counter[] {decisions, sglang};
    }

    private Counter selection(String role, String model, String policy) {
        return counter(MeterKey.of("ss", role, model, policy), () -> Counter.builder("smg.worker.selection")
                .description("Worker selection events by worker_type, connection_mode, model, policy (SGLang's name)")
                .tags("worker_type", role, "connection_mode", "http", "model", model, "policy", policy)
                .register(registry));
    }

    /**
     * The value under two labels, created on first use: label strings as keys, so a look-up allocates nothing (a
     * {@link MeterKey} per meter and request did). A null label is not cached (a map cannot hold it).
     */
    private static <V> V nested(Map<String, Map<String, V>> maps, String first, String second,
                                java.util.function.BiFunction<String, String, V> create) {
        if (first == null || second == null) {
            return create.apply(first, second);
        }
        Map<String, V> inner = maps.get(first);
        if (inner == null) {
            inner = maps.computeIfAbsent(first, k -> new ConcurrentHashMap<>());
        }
        V v = inner.get(second);
        return v != null ? v : inner.computeIfAbsent(second, k -> create.apply(first, second));
    }

    /** {@code smg_worker_selection_total} of a policy, role and model, cached as {@link #nested}; null if a label is. */
    private Counter nested(Map<String, Map<String, Map<String, Counter>>> maps, String policy, String role,
                           String model) {
        if (policy == null || role == null || model == null) {
            return null;
        }
        Map<String, Map<String, Counter>> byRole = maps.get(policy);
        if (byRole == null) {
            byRole = maps.computeIfAbsent(policy, k -> new ConcurrentHashMap<>());
        }
        Map<String, Counter> byModel = byRole.get(role);
        if (byModel == null) {
            byModel = byRole.computeIfAbsent(role, k -> new ConcurrentHashMap<>());
        }
        Counter c = byModel.get(model);
        return c != null ? c : byModel.computeIfAbsent(model, m -> selection(role, m, policy));
    }

    /** The policies whose branch counters SGLang exports ({@code smg_<policy>_policy_branch_total}). */
    private static final java.util.Set<String> SGLANG_BRANCH_POLICIES = java.util.Set.of("manual", "consistent_hashing",
            "prefix_hash");

    @Override
    public void onWorkerAdded(Worker worker) {
        List<Meter> meters = new ArrayList<>(2);
        meters.add(Gauge.builder("caravan.worker.requests.active", worker, Worker::localLoad)
                .description("Requests in flight on the worker through this gateway")
                .tag("worker", worker.url()).register(registry));
        meters.add(Gauge.builder("caravan.worker.healthy", worker, w -> w.isHealthy() ? 1 : 0)
                .description("1 when the worker is healthy").tag("worker", worker.url()).register(registry));
        meters.add(Gauge.builder("smg.worker.requests.active", worker, Worker::load)
                .description("Currently running requests per worker (SGLang's name)")
                .tag("worker", worker.url()).register(registry));
        meters.add(Gauge.builder("smg.worker.health", worker, w -> w.isHealthy() ? 1 : 0)
                .description("Worker health status, 1 healthy, 0 unhealthy (SGLang's name)")
                .tag("worker", worker.url()).register(registry));
        workerMeters.put(worker.id(), meters);
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        List<Meter> meters = workerMeters.remove(worker.id());
        if (meters != null) {
            meters.forEach(registry::remove);
        }
        // the token counters stay: they are totals, and Prometheus keeps counting them across re-registration
    }

    /** Re-reads every tree-backed policy's per-worker sizes into {@code caravan_tree_chars}. */
    public void refreshTreeGauges() {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (PolicyRegistry p : policies) {
            for (LoadBalancingPolicy policy : p.policies().values()) {
                if (policy instanceof TreeBacked tree) {
                    tree.treeChars().forEach((model, byWorker) -> byWorker.forEach((worker, chars) ->
                            rows.add(MultiGauge.Row.of(Tags.of("model", model, "worker", worker), chars))));
                }
            }
        }
        treeChars.register(rows, true);
    }
}
