package dev.caravan.processors;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

import dev.caravan.components.http.HttpExchangeProperties;
import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.text.PromptTokens;

/**
 * The contract between route steps: every exchange property a step reads or writes, each a typed
 * {@link ExchangeProperty}. A step reads what earlier steps wrote and writes its own result; steps never call each
 * other, and the order lives in the YAML routes.
 *
 * <p><b>Why typed properties and not one request-context object.</b> A single mutable context stored under one property
 * was considered and rejected, for three reasons. (1) <i>Multicast copies.</i> The P/D legs run on copies of the
 * exchange whose property map Camel copies shallowly; a context object would be shared by both parallel legs, while
 * each leg must write its own result ({@code LegResult.PROPERTY}) without touching the other's. With properties,
 * per-exchange values stay per exchange, and what must be shared is shared explicitly by reference
 * ({@code PdDispatch}). (2) <i>Routes read and write by name.</i> {@code simple} expressions and {@code setProperty}
 * steps in the YAML (and in users' edited routes, e.g. {@code ${exchangeProperty.caravanDecision.label}}) address
 * properties by name; they keep working unchanged. (3) <i>Package layering.</i> A context typed with every feature's
 * state would import every feature package that imports it back; instead, a property typed by a feature's own class is
 * declared on that class, so dependencies point one way.
 *
 * <p>So the typed keys live here when their type is the JDK's, Vert.x's or the routing core's, and on the feature
 * class otherwise: {@code Usage.PROPERTY} ({@code caravanUsage}), {@code AdmissionTicket.PROPERTY},
 * {@code RetryState.PROPERTY}, {@code ControlCall.PROPERTY}, and P/D's {@code PdPair.PROPERTY},
 * {@code PdDispatch.PROPERTY}, {@code LegResult.PROPERTY}, {@code PdVerdict.PROPERTY}, and decision quality's
 * {@code MeasurePrefixesProcessor.HELD} and {@code MeasurePrefixesProcessor.SHADOW_PENDING} (route-read:
 * {@code caravanShadowPending} gates the shadow policies' wire tap).
 *
 * <p><b>Route-visible</b> properties are part of the YAML's vocabulary: <i>route-settable</i> ones a route may set
 * ({@link #REQUEST_KIND}, {@link #ATTEMPT}, {@link #UPSTREAM_PATH}, {@link #UPSTREAM_BODY}, {@link #KV_WORKER_ID}) and
 * <i>route-read</i> ones a route tests or interpolates ({@link #ATTEMPT_PENDING}, {@link #ATTEMPT},
 * {@link #CONTROL_URL}, {@code caravanPdVerdict}, {@link #DECISION}). Renaming one breaks routes, so their names are
 * fixed.
 *
 * <p>Request path, in route order (see docs/design/request-path.md, "Steps and exchange properties"):
 * <pre>
 * HTTP consumer      START_NANOS
 * ingress route      REQUEST_KIND, ATTEMPT (route-set)
 * parseRequest       CLIENT_REQUEST, REQUEST_BODY, REQUEST_JSON, MODEL, STREAM, REQUEST_ID, UPSTREAM_PATH
 * extractRoutingText ROUTING_TEXT
 * admitRequest       AdmissionTicket.PROPERTY
 * recallPrevious...  PREFERRED_WORKER, ResponseIdSink.PROPERTY           (responses with previous_response_id)
 * tokenizePrompt     PROMPT_TOKENS (when the model's tokenizer or the engine's /tokenize is configured)
 * choosePdMode       ATTEMPT (pd-sglang / pd-vllm)
 * beginAttempts      RetryState.PROPERTY, ATTEMPT_PENDING, EXCLUDED_WORKERS, HOLD_BACK_STATUSES
 * measurePrefixes    MeasurePrefixesProcessor.HELD, .SHADOW_PENDING  (each attempt; only with --decision-quality
 *                    or --shadow-policies)
 * selectWorker       DECISION, WORKER, LEASE                                  (each attempt)
 * resolveEnginePath  UPSTREAM_PATH (the worker's engine's path)               (each attempt)
 * pinDataParallel... UPSTREAM_BODY, X-data-parallel-rank header (rank workers) (each attempt)
 * forwardStream      RESPONSE_STATUS, RESPONSE_COMMITTED, TTFB_NANOS, Usage.PROPERTY, OUTCOME  (each attempt),
 *                    RESPONSE_END_NANOS (the answer)
 * decideRetry        ATTEMPT_PENDING, HOLD_BACK_STATUSES (clears the failed attempt's properties)
 * error mapping      ERROR_CODE, RESPONSE_STATUS
 * </pre>
 * The P/D attempt bodies (pd.camel.yaml, docs/pd.md) add the {@code PD_*} properties below.
 */
public final class CaravanExchangeProperties {

    /** Route-settable. The inference API of the request: {@code chat}, {@code completions}, {@code generate},
     *  {@code embeddings}, {@code rerank}, ... ({@code RequestKind}). Set by the ingress route before
     *  {@code parseRequest}. */
    public static final ExchangeProperty<String> REQUEST_KIND = ExchangeProperty.of("caravanRequestKind", String.class);
    /** {@link System#nanoTime()} when the request arrived, set by the HTTP consumer. */
    public static final ExchangeProperty<Long> START_NANOS = ExchangeProperty.of(HttpExchangeProperties.START_NANOS, Long.class);
    /** The client's request; its {@code response()} is where the answer is streamed. */
    public static final ExchangeProperty<HttpServerRequest> CLIENT_REQUEST =
            ExchangeProperty.of("caravanClientRequest", HttpServerRequest.class);
    /** The request body as received; forwarded byte for byte unless {@link #UPSTREAM_BODY}. */
    public static final ExchangeProperty<Buffer> REQUEST_BODY = ExchangeProperty.of("caravanRequestBody", Buffer.class);
    /** The parsed JSON body, plain Java values. */
    public static final ExchangeProperty<Map<String, Object>> REQUEST_JSON =
            ExchangeProperty.ofGeneric("caravanRequestJson", Map.class);
    /** The request's {@code model} field, or null when absent. */
    public static final ExchangeProperty<String> MODEL = ExchangeProperty.of("caravanModel", String.class);
    /** The request asked for a streamed (SSE) response. */
    public static final ExchangeProperty<Boolean> STREAM = ExchangeProperty.of("caravanStream", Boolean.class);
    /** The request id: from the first configured request-id header, else generated; sent upstream as X-Request-Id. */
    public static final ExchangeProperty<String> REQUEST_ID = ExchangeProperty.of("caravanRequestId", String.class);
    /** Route-settable. Path (and query) the request is sent to on the worker; defaults to the kind's API path. */
    public static final ExchangeProperty<String> UPSTREAM_PATH =
            ExchangeProperty.of("caravanUpstreamPath", String.class);
    /** Route-settable. Replacement body to send upstream: a {@code Buffer}, {@code byte[]} or {@code String}. */
    public static final ExchangeProperty<Object> UPSTREAM_BODY =
            ExchangeProperty.of("caravanUpstreamBody", Object.class);
    /**
     * URL of the worker the request should go to when it is available (a Responses API request continuing a response
     * that worker stored, {@code recallPreviousResponse}); {@code selectWorker} then skips the policy.
     */
    public static final ExchangeProperty<String> PREFERRED_WORKER =
            ExchangeProperty.of("caravanPreferredWorker", String.class);
    /** The routing text the policy sees (see docs/policies.md, "Routing text", for its exact format per kind). */
    public static final ExchangeProperty<String> ROUTING_TEXT = ExchangeProperty.of("caravanRoutingText", String.class);
    /**
     * The engine's own prompt tokens with the request's LoRA adapter and {@code cache_salt} (docs/tokens.md), or absent
     * when no source has them; the selection steps hand them to the policy as {@code SelectionContext#prompt()}.
     */
    public static final ExchangeProperty<PromptTokens> PROMPT_TOKENS =
            ExchangeProperty.of("caravanPromptTokens", PromptTokens.class);
    /** Route-read (e.g. {@code ${exchangeProperty.caravanDecision.label}}). The policy's decision. */
    public static final ExchangeProperty<Decision> DECISION = ExchangeProperty.of("caravanDecision", Decision.class);
    /** The chosen worker. */
    public static final ExchangeProperty<Worker> WORKER = ExchangeProperty.of("caravanWorker", Worker.class);
    /** The lease held while the request is in flight; released exactly once. */
    public static final ExchangeProperty<WorkerLease> LEASE = ExchangeProperty.of("caravanLease", WorkerLease.class);
    /** The HTTP status sent to the client, once known. */
    public static final ExchangeProperty<Integer> RESPONSE_STATUS =
            ExchangeProperty.of(HttpExchangeProperties.RESPONSE_STATUS, Integer.class);
    /** The response head has been written by a streaming step; nothing else may write it. */
    public static final ExchangeProperty<Boolean> RESPONSE_COMMITTED =
            ExchangeProperty.of(HttpExchangeProperties.RESPONSE_COMMITTED, Boolean.class);
    /** Nanoseconds from the request's arrival to the first response byte. */
    public static final ExchangeProperty<Long> TTFB_NANOS = ExchangeProperty.of("caravanTtfbNanos", Long.class);
    /**
     * {@link System#nanoTime()} when the relay that answered the request ended its response, set by
     * {@code forwardStream} just before the exchange's route resumes (a moment later: design/request-path.md,
     * "Per-request cost"), so what times the request ends it here.
     */
    public static final ExchangeProperty<Long> RESPONSE_END_NANOS =
            ExchangeProperty.of("caravanResponseEndNanos", Long.class);
    /** How the attempt ended ({@code ForwardOutcomes}: {@code completed}, {@code upstream_failed}, ...). */
    public static final ExchangeProperty<String> OUTCOME = ExchangeProperty.of("caravanOutcome", String.class);
    /** The error code of a mapped error ({@code no_available_workers}, ...), also sent as X-Caravan-Error-Code. */
    public static final ExchangeProperty<String> ERROR_CODE = ExchangeProperty.of("caravanErrorCode", String.class);
    /** Headers every response of this request carries, success or error, streamed or not (a rate-limited tenant's
     *  OpenAI {@code x-ratelimit-*} headers, set by {@code limitTenantRate}); an error's own headers win. */
    public static final ExchangeProperty<Map<String, String>> RESPONSE_HEADERS =
            ExchangeProperty.ofGeneric("caravanResponseHeaders", Map.class);

    // ---- the attempt loop (routes/ingress.camel.yaml, route inference, docs/reliability.md) --------------------

    /**
     * Route-settable and route-read. The attempt body the loop runs: {@code forward} (set by the inference route; the
     * regular forward steps, inline in that route), or {@code pd-sglang} / {@code pd-vllm} (set by
     * {@code choosePdMode}; route {@code direct:attempt-<value>}).
     */
    public static final ExchangeProperty<String> ATTEMPT = ExchangeProperty.of("caravanAttempt", String.class);
    /** Route-read. Another attempt is due: the condition of the attempt loop. */
    public static final ExchangeProperty<Boolean> ATTEMPT_PENDING =
            ExchangeProperty.of("caravanAttemptPending", Boolean.class);
    /** Workers the selection steps avoid while others are available (workers that already failed this request). */
    public static final ExchangeProperty<Set<Worker>> EXCLUDED_WORKERS =
            ExchangeProperty.ofGeneric("caravanExcludedWorkers", Set.class);
    /** Upstream statuses a relaying step must not relay because another attempt will follow; absent on the last. */
    public static final ExchangeProperty<IntPredicate> HOLD_BACK_STATUSES =
            ExchangeProperty.of("caravanHoldBackStatuses", IntPredicate.class);

    // ---- prefill/decode disaggregation (pd.camel.yaml, docs/pd.md) ----------------------------------------------

    /** The body sent to the prefill leg. */
    public static final ExchangeProperty<Buffer> PD_PREFILL_BODY =
            ExchangeProperty.of("caravanPdPrefillBody", Buffer.class);
    /** The body sent to the decode leg. */
    public static final ExchangeProperty<Buffer> PD_DECODE_BODY =
            ExchangeProperty.of("caravanPdDecodeBody", Buffer.class);
    /** The bootstrap rooms minted for this attempt (one per batch item, or one). */
    public static final ExchangeProperty<List<Long>> PD_ROOMS =
            ExchangeProperty.ofGeneric("caravanPdRooms", List.class);
    /** The client asked for logprobs, so prefill's input logprobs are spliced into decode's response. */
    public static final ExchangeProperty<Boolean> PD_LOGPROBS = ExchangeProperty.of("caravanPdLogprobs", Boolean.class);

    // ---- control plane (fan-out calls to workers, control.camel.yaml) ---------------------------------------------

    /** Absolute URL of the control call of a split sub-exchange, for logs and failure reports. */
    public static final ExchangeProperty<String> CONTROL_URL = ExchangeProperty.of("caravanControlUrl", String.class);
    /** Why a control call failed (connection refused, timeout, ...), set by {@code recordControlFailure}. */
    public static final ExchangeProperty<String> CONTROL_ERROR =
            ExchangeProperty.of("caravanControlError", String.class);

    // ---- KV events (the per-worker kv-events route template, docs/kv-events.md) ----------------------------------

    /** Route-settable. The id of the worker whose KV events the exchange carries; the route template sets it. */
    public static final ExchangeProperty<String> KV_WORKER_ID = ExchangeProperty.of("caravanKvWorkerId", String.class);
    /** Route-settable. The data-parallel rank whose publisher the route subscribes to ("0" when the engine has one). */
    public static final ExchangeProperty<String> KV_RANK = ExchangeProperty.of("caravanKvRank", String.class);

    private CaravanExchangeProperties() {
    }
}
