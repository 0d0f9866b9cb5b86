package dev.caravan.processors;

/**
 * Names of the exchange properties the gateway's processors read and write: the contract between route steps. A step
 * reads what earlier steps wrote and writes its own result here; steps never call each other, and the order lives in the
 * YAML routes. YAML may set the ones marked "route-settable" ({@code setProperty: {name: caravanRequestKind, ...}}).
 *
 * <p>Request path, in route order (see docs/architecture.md, "Request path and route graph"):
 * <pre>
 * HTTP consumer      START_NANOS
 * ingress route      REQUEST_KIND (route-settable)
 * parseRequest       CLIENT_REQUEST, REQUEST_BODY, REQUEST_JSON, MODEL, STREAM, REQUEST_ID, UPSTREAM_PATH
 * extractRoutingText ROUTING_TEXT
 * admitRequest       ADMISSION_TICKET
 * beginAttempts      RETRY_STATE, ATTEMPT_PENDING, EXCLUDED_WORKERS, HOLD_BACK_STATUSES
 * selectWorker       DECISION, WORKER, LEASE                                  (each attempt)
 * forwardStream      RESPONSE_STATUS, RESPONSE_COMMITTED, TTFB_NANOS, USAGE, OUTCOME  (each attempt)
 * decideRetry        ATTEMPT_PENDING, HOLD_BACK_STATUSES (clears the failed attempt's properties)
 * error mapping      ERROR_CODE, RESPONSE_STATUS
 * </pre>
 * The P/D routes (pd.camel.yaml, docs/pd.md) add the {@code PD_*} properties below.
 */
public final class CaravanExchangeProperties {

    /** Route-settable. The inference API of the request: {@code chat}, {@code completions}, {@code generate},
     *  {@code embeddings} ({@code RequestKind}). Set by the ingress route before {@code parseRequest}. */
    public static final String REQUEST_KIND = "caravanRequestKind";
    /** {@link System#nanoTime()} when the request arrived (Long), set by the HTTP consumer. */
    public static final String START_NANOS = "caravanStartNanos";
    /** The client's Vert.x {@code HttpServerRequest}; its {@code response()} is where the answer is streamed. */
    public static final String CLIENT_REQUEST = "caravanClientRequest";
    /** The request body as received (a Vert.x {@code Buffer}); forwarded byte for byte unless {@link #UPSTREAM_BODY}. */
    public static final String REQUEST_BODY = "caravanRequestBody";
    /** The parsed JSON body, a {@code Map<String, Object>} of plain Java values. */
    public static final String REQUEST_JSON = "caravanRequestJson";
    /** The request's {@code model} field, or null when absent. */
    public static final String MODEL = "caravanModel";
    /** Boolean: the request asked for a streamed (SSE) response. */
    public static final String STREAM = "caravanStream";
    /** The request id: taken from the first configured request-id header, else generated; sent upstream as X-Request-Id. */
    public static final String REQUEST_ID = "caravanRequestId";
    /** Route-settable. Path (and query) the request is sent to on the worker; defaults to the kind's API path. */
    public static final String UPSTREAM_PATH = "caravanUpstreamPath";
    /** Route-settable. Replacement body to send upstream (a {@code Buffer}, {@code byte[]} or {@code String}). */
    public static final String UPSTREAM_BODY = "caravanUpstreamBody";
    /** The routing text the policy sees (see docs/architecture.md for its exact format per kind). */
    public static final String ROUTING_TEXT = "caravanRoutingText";
    /** The policy's {@code Decision}. */
    public static final String DECISION = "caravanDecision";
    /** The chosen {@code Worker}. */
    public static final String WORKER = "caravanWorker";
    /** The {@code WorkerLease} held while the request is in flight; released exactly once. */
    public static final String LEASE = "caravanLease";
    /** The HTTP status sent to the client (Integer), once known. */
    public static final String RESPONSE_STATUS = "caravanResponseStatus";
    /** Boolean: the response head has been written by a streaming step; nothing else may write it. */
    public static final String RESPONSE_COMMITTED = "caravanResponseCommitted";
    /** Nanoseconds from the exchange's creation to the first response byte (Long). */
    public static final String TTFB_NANOS = "caravanTtfbNanos";
    /** Token counts read from the upstream response ({@code Usage}), when it reported them. */
    public static final String USAGE = "caravanUsage";
    /** How the forward ended: {@code completed}, {@code upstream_failed}, {@code client_closed}, {@code timeout}. */
    public static final String OUTCOME = "caravanOutcome";
    /** The error code of a mapped error ({@code no_available_workers}, ...), also sent as X-Caravan-Error-Code. */
    public static final String ERROR_CODE = "caravanErrorCode";

    // ---- reliability: admission, retries (docs/reliability.md) ------------------------------------------------------

    /** The request's {@code AdmissionTicket} (a concurrency slot, or just its in-flight count); released once when the
     *  exchange completes. */
    public static final String ADMISSION_TICKET = "caravanAdmissionTicket";
    /** The request's {@code RetryState}: attempts made, workers to avoid, the next back-off. */
    public static final String RETRY_STATE = "caravanRetryState";
    /** Boolean: another attempt is due — the condition of the inference route's attempt loop. */
    public static final String ATTEMPT_PENDING = "caravanAttemptPending";
    /** {@code Set<Worker>} that {@code selectWorker} avoids while others are available (workers that already failed
     *  this request). */
    public static final String EXCLUDED_WORKERS = "caravanExcludedWorkers";
    /** {@code java.util.function.IntPredicate}: upstream statuses the forward step must not relay because another
     *  attempt will follow; absent on the last attempt. */
    public static final String HOLD_BACK_STATUSES = "caravanHoldBackStatuses";

    // ---- prefill/decode disaggregation (pd.camel.yaml, docs/pd.md) ----------------------------------------------

    /** Set by {@code choosePdMode}: {@code sglang} or {@code vllm} when the request takes a P/D route, else absent. */
    public static final String PD_MODE = "caravanPdMode";
    /** The selected prefill/decode pair with its decisions and leases ({@code PdPair}), set by {@code selectPdPair}. */
    public static final String PD_PAIR = "caravanPdPair";
    /** The body sent to the prefill leg (a {@code Buffer}). */
    public static final String PD_PREFILL_BODY = "caravanPdPrefillBody";
    /** The body sent to the decode leg (a {@code Buffer}). */
    public static final String PD_DECODE_BODY = "caravanPdDecodeBody";
    /** The bootstrap rooms minted for this attempt ({@code List<Long>}, one per batch item, or one). */
    public static final String PD_ROOMS = "caravanPdRooms";
    /** Boolean: the client asked for logprobs, so prefill's input logprobs are spliced into decode's response. */
    public static final String PD_LOGPROBS = "caravanPdLogprobs";
    /** The per-attempt dispatch state both legs, the aggregation and the relay share ({@code PdDispatch}). */
    public static final String PD_DISPATCH = "caravanPdDispatch";
    /** What one leg produced ({@code LegResult}): set on the leg's exchange (its body too). */
    public static final String PD_LEG_RESULT = "caravanPdLegResult";
    /** The aggregation's decision ({@code PdVerdict}): which response the client gets. */
    public static final String PD_VERDICT = "caravanPdVerdict";

    // ---- control plane (fan-out calls to workers, control.camel.yaml) ---------------------------------------------

    /** The {@code ControlCall} a split sub-exchange carries out. */
    public static final String CONTROL_CALL = "caravanControlCall";
    /** Absolute URL of the control call, for logs and failure reports. */
    public static final String CONTROL_URL = "caravanControlUrl";
    /** Why a control call failed (connection refused, timeout, ...), set by {@code recordControlFailure}. */
    public static final String CONTROL_ERROR = "caravanControlError";

    // ---- KV events (the per-worker kv-events route template, docs/kv-events.md) ----------------------------------

    /** Route-settable. The id of the worker whose KV events the exchange carries; the route template sets it. */
    public static final String KV_WORKER_ID = "caravanKvWorkerId";

    private CaravanExchangeProperties() {
    }
}
