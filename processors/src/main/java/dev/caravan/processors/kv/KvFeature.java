package dev.caravan.processors.kv;

import static dev.caravan.processors.config.FlagType.BOOLEAN;
import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.camel.CamelContext;

import dev.caravan.policies.Decision;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEventSink;
import dev.caravan.policies.kv.KvGroundTruth;
import dev.caravan.policies.kv.KvGroupSpec;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.tokens.HfTokenizer;
import dev.caravan.tokens.KvTokenizers;

/**
 * KV events and kv_aware (docs/kv-events.md): the shared {@link KvBlockIndex} and {@link ParityTracker} that
 * {@code kv_aware} routes on ({@link #groundTruth()}, handed to the policies' environment in
 * {@link #policyEnvironment}, before any policy exists), the ingestor that feeds them, the optional tree calibration,
 * the per-worker route manager, the meters, and the steps {@code routes/kv-events.camel.yaml} references.
 *
 * <p>Lifecycle (the {@link Feature} contract): {@link #policyEnvironment} builds the index, the self-check and the
 * tokenizer source and shares the {@link KvSettings}; {@link #wire} builds the pipeline on the gateway's policies
 * (bound as {@link Wiring#POLICY_REGISTRY}) and the route manager starts listening to the worker registry;
 * {@link #start} creates the per-rank routes of the workers known so far; {@link #close} stops them.
 */
public final class KvFeature implements Feature {

    /** Route steps of {@code kv-events.camel.yaml}. */
    public static final String DECODE_KV_BATCH = "decodeKvBatch";
    public static final String APPLY_KV_EVENTS = "applyKvEvents";
    public static final String CHECK_KV_PUBLISHERS = "checkKvPublishers";
    public static final String PLAN_KV_CAPACITY_POLL = "planKvCapacityPoll";
    public static final String APPLY_KV_CAPACITY = "applyKvCapacity";
    /** Shared objects no route references (replica sync looks the index and the ingestor up by these names). */
    public static final String KV_BLOCK_INDEX = "kvBlockIndex";
    public static final String KV_PARITY_TRACKER = "kvParityTracker";
    public static final String KV_EVENT_INGESTOR = "kvEventIngestor";
    public static final String KV_ROUTE_MANAGER = "kvRouteManager";
    public static final String KV_METRICS = "kvMetrics";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag KV_TOKENIZER = ROWS.option(PolicyConfig.KV_TOKENIZER, STRING, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_TOKENIZER).checkedBy("kv_aware when it loads the tokenizer")
            .describe("kv_aware: 'pseudo' (the engine simulator's tokenizer) or the path of the model's HuggingFace "
                    + "tokenizer.json, used on the routing text when no prompt tokens are available; prefer "
                    + "--model-path, which gives chat requests the engine's own tokens (docs/tokens.md).");
    public static final CaravanFlag KV_ADD_SPECIAL_TOKENS = ROWS.row("--kv-add-special-tokens",
            "caravan.kv.add-special-tokens", BOOLEAN, Sections.KV)
            .defaultValue(HfTokenizer.DEFAULT_ADD_SPECIAL_TOKENS)
            .describe("kv_aware with --kv-tokenizer: add the tokenizer's special tokens (BOS...) when encoding the "
                    + "routing text, as vLLM's /v1/completions does (true); false for engines fed pre-rendered prompts "
                    + "encoded without them. Prompt tokens (--model-path) follow the engine's rules instead "
                    + "(docs/tokens.md).");
    public static final CaravanFlag KV_CHARS_PER_TOKEN = ROWS.option(PolicyConfig.KV_CHARS_PER_TOKEN, INT, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_CHARS_PER_TOKEN)
            .range(KvAwareConfig.MIN_CHARS_PER_TOKEN, KvAwareConfig.MAX_CHARS_PER_TOKEN)
            .describe("Characters per token: the pseudo-tokenizer's (the simulator's --chars-per-token), and the "
                    + "estimate the tree calibration and 'auto' tree size use.");
    public static final CaravanFlag KV_BLOCK_SIZE = ROWS.option(PolicyConfig.KV_BLOCK_SIZE, INT, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_BLOCK_SIZE)
            .range(KvAwareConfig.MIN_BLOCK_SIZE, KvAwareConfig.MAX_BLOCK_SIZE)
            .describe("Tokens per KV block assumed until an engine reports its own (every BlockStored does; SGLang's "
                    + "page size); also the tree calibration's.");
    public static final CaravanFlag KV_HASH_SEED = ROWS.option(PolicyConfig.KV_HASH_SEED, STRING, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_HASH_SEED)
            .describe("Accepted and ignored: kv_aware keys blocks by its own hash of token ids, so the engines' "
                    + "PYTHONHASHSEED and hash algorithm no longer matter.");
    public static final CaravanFlag KV_OVERLAP_WEIGHT = ROWS.option(PolicyConfig.KV_OVERLAP_WEIGHT, DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_OVERLAP_WEIGHT).checkedBy(FlagRows.BY_POLICY)
            .describe("kv_aware: cost = weight x uncached prefill blocks + active blocks, lowest wins (Dynamo's "
                    + "--kv-overlap-score-weight, whose default is 1).");
    public static final CaravanFlag KV_DECODE_LOAD_SOURCE = ROWS.option(PolicyConfig.KV_DECODE_LOAD_SOURCE,
            STRING, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_DECODE_LOAD_SOURCE.name().toLowerCase(Locale.ROOT))
            .oneOf(Choices.of(Arrays.stream(KvAwareConfig.DecodeLoadSource.values())
                    .map(v -> v.name().toLowerCase(Locale.ROOT)).toList()))
            .describe("kv_aware: active blocks from 'router' (distinct blocks of this gateway's in-flight requests "
                    + "per engine rank) or 'engine' (the engine's reported token load).");
    public static final CaravanFlag KV_CPU_WEIGHT = ROWS.option(PolicyConfig.KV_CPU_WEIGHT, DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_CPU_WEIGHT).range(0.0, 1.0)
            .describe("kv_aware: what a block in the engine's host-memory tier (medium CPU, CPU_PINNED) saves, "
                    + "relative to a GPU block.");
    public static final CaravanFlag KV_DISK_WEIGHT = ROWS.option(PolicyConfig.KV_DISK_WEIGHT, DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_DISK_WEIGHT).range(0.0, 1.0)
            .describe("kv_aware: what a block in the engine's storage tier (medium STORAGE, DISK) saves, relative to "
                    + "a GPU block.");
    public static final CaravanFlag KV_ROUTER_TEMPERATURE = ROWS.option(PolicyConfig.KV_ROUTER_TEMPERATURE,
            DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_TEMPERATURE).checkedBy(FlagRows.BY_POLICY)
            .describe("kv_aware: 0 = the lowest cost wins; > 0 = sample workers by softmax of their normalised "
                    + "costs (Dynamo's --router-temperature).");
    public static final CaravanFlag KV_DISCOUNT_SHARED_PREFIX = ROWS.option(PolicyConfig.KV_DISCOUNT_SHARED_PREFIX,
            BOOLEAN, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_DISCOUNT_SHARED_PREFIX)
            .describe("kv_aware: cached blocks count only beyond the request's shared branch point (a prefix at "
                    + "least 1/N of the routed requests pass through and go on from in more than one way, N engine "
                    + "ranks), so a hot tenant and new conversations after a common preamble choose by load.");
    public static final CaravanFlag KV_STATE_AFFINITY = ROWS.option(PolicyConfig.KV_STATE_AFFINITY, DOUBLE,
            Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_STATE_AFFINITY).range(0.0, 1.0)
            .describe("kv_aware, hybrid models: the blocks full attention holds beyond what every KV-cache group "
                    + "serves count this much against the prefill cost (not saved there, but the rank keeps the "
                    + "prefix together and a state where the request ends).");
    public static final CaravanFlag KV_EVENTS_ENDPOINT_TEMPLATE = ROWS.row("--kv-events-endpoint-template",
            "caravan.kv.events-endpoint-template", STRING, Sections.KV)
            .describe("KV-event PUB endpoint of workers registered without one, from their URL: {host} and {port} are "
                    + "replaced, e.g. tcp://{host}:5557.");
    public static final CaravanFlag KV_REPLAY_ENDPOINT_TEMPLATE = ROWS.row("--kv-replay-endpoint-template",
            "caravan.kv.replay-endpoint-template", STRING, Sections.KV)
            .describe("KV-event replay (ROUTER) endpoint of workers registered without one, e.g. tcp://{host}:5558.");
    public static final CaravanFlag KV_EVENTS_TOPIC = ROWS.row("--kv-events-topic", "caravan.kv.events-topic",
            STRING, Sections.KV)
            .describe("Topic prefixes (comma-separated) the KV-event subscriptions filter on; empty = all.");
    public static final CaravanFlag KV_REPLAY_TIMEOUT_SECS = ROWS.row("--kv-replay-timeout-secs",
            "caravan.kv.replay-timeout-secs", LONG, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_REPLAY_TIMEOUT.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("Longest wait for one replay of missed KV-event batches, in seconds.");
    public static final CaravanFlag KV_MAX_BLOCKS_PER_WORKER = ROWS.row("--kv-max-blocks-per-worker",
            "caravan.kv.max-blocks-per-worker", INT, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_MAX_BLOCKS_PER_WORKER).min(1)
            .describe("Block index bound per engine rank (oldest dropped beyond it); set above the largest engine's "
                    + "blocks (KV pool tokens / block size; SGLang's page size is often 1).");
    public static final CaravanFlag KV_SILENCE_THRESHOLD_SECS = ROWS.row("--kv-silence-threshold-secs",
            "caravan.kv.silence-threshold-secs", LONG, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_SILENCE_THRESHOLD.toSeconds()).range(0, FlagRows.MAX_SECONDS)
            .describe("Warn (and set caravan_kv_publisher_silent) when a worker served requests but its KV publisher "
                    + "was silent this long; 0 disables.");
    public static final CaravanFlag KV_CALIBRATE_TREE = ROWS.row("--kv-calibrate-tree", "caravan.kv.calibrate-tree",
            BOOLEAN, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_CALIBRATE_TREE)
            .describe("cache_aware: evict from a worker's tree what its engine reports evicting (BlockRemoved), and "
                    + "drop its tenancy when the engine clears or restarts.");
    public static final CaravanFlag KV_GROUPS = ROWS.row("--kv-groups", "caravan.kv.groups", STRING, Sections.KV)
            .pattern("[^\\s]*", "MODEL=GROUP:KIND[:SPAN],...;... without spaces")
            .describe("kv_aware: KV-cache groups of hybrid models whose engines do not describe them in their events, "
                    + "per model: MODEL=GROUP:KIND[:SPAN],... entries separated by ';' (no MODEL= for every model), "
                    + "KIND full_attention, sliding_window (SPAN = window), chunked_local (SPAN = chunk) or mamba, "
                    + "e.g. Llama-4-Scout=0:full_attention,1:chunked_local:8192 (docs/kv-events.md).");
    public static final CaravanFlag KV_GROUP_RULES = ROWS.row("--kv-group-rules", "caravan.kv.group-rules", BOOLEAN,
            Sections.KV)
            .defaultValue(true)
            .describe("kv_aware: score a hybrid model's engine rank by the prefix every KV-cache group can serve "
                    + "(sliding window, chunked local, Mamba snapshots); false scores it by full attention alone.");
    public static final CaravanFlag KV_PARITY_EXPIRY_SECS = ROWS.row("--kv-parity-expiry-secs",
            "caravan.kv.parity-expiry-secs", LONG, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_PARITY_EXPIRY.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("kv_aware self-check: seconds a predicted block may wait for the engine's BlockStored before it "
                    + "counts as a miss.");
    public static final CaravanFlag KV_PARITY_WARN_BELOW = ROWS.row("--kv-parity-warn-below", "caravan.kv.parity-warn-below",
            DOUBLE, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_PARITY_WARN_BELOW).range(0.0, 1.0)
            .describe("kv_aware self-check: warn when the recent agreement of predicted and reported blocks drops "
                    + "below this.");
    public static final CaravanFlag KV_PARITY_FALLBACK = ROWS.row("--kv-parity-fallback", "caravan.kv.parity-fallback",
            BOOLEAN, Sections.KV)
            .defaultValue(false)
            .describe("kv_aware: while the self-check is degraded (below --kv-parity-warn-below), route by cache_aware "
                    + "(same options) except one request in 8, which keeps checking kv_aware's predictions.");

    private KvSettings settings;
    private KvBlockIndex index;
    private ParityTracker parity;
    private KvTokenizers tokenizers;
    private final KvCapacities capacities = new KvCapacities();
    private final Map<String, LongAdder> routed = new ConcurrentHashMap<>();
    private KvEventIngestor ingestor;
    private KvRouteManager routes;
    private TreeCalibrator calibrator;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    /** The KV-event settings from the flag table (values already checked against their rows). */
    public static KvSettings settings(GatewayConfig config) {
        return new KvSettings(config.get(KV_EVENTS_ENDPOINT_TEMPLATE), config.get(KV_REPLAY_ENDPOINT_TEMPLATE),
                config.get(KV_EVENTS_TOPIC), config.getSeconds(KV_REPLAY_TIMEOUT_SECS),
                config.getInt(KV_MAX_BLOCKS_PER_WORKER), config.getSeconds(KV_SILENCE_THRESHOLD_SECS),
                config.getBoolean(KV_CALIBRATE_TREE),
                config.get(RoutingFeature.MAX_TREE_SIZE).equals(RoutingFeature.AUTO),
                config.getInt(KV_CHARS_PER_TOKEN), config.getInt(KV_BLOCK_SIZE),
                config.getSeconds(KV_PARITY_EXPIRY_SECS), config.getDouble(KV_PARITY_WARN_BELOW));
    }

    /**
     * Builds the block index, the parity self-check and kv_aware's tokenizer source ({@code --kv-add-special-tokens}),
     * shares the {@link KvSettings} with the features wired later (the KV subscriptions' readiness check), and hands
     * the ground truth to the policies.
     */
    @Override
    public PolicyEnvironment policyEnvironment(Wiring w, PolicyEnvironment env) {
        settings = settings(w.config());
        tokenizers = new KvTokenizers(w.config().getBoolean(KV_ADD_SPECIAL_TOKENS));
        index = new KvBlockIndex(settings.maxBlocksPerWorker());
        index.useGroupRules(w.config().getBoolean(KV_GROUP_RULES));
        index.configureGroups(groupsByWorker(w.workers(), groupsByModel(w.config().get(KV_GROUPS))));
        parity = new ParityTracker(settings.parityConfig(), System::nanoTime);
        w.share(KvSettings.class, settings);
        return env.withKv(groundTruth());
    }

    /** {@code --kv-groups} parsed, or a startup error naming the entry that is wrong. */
    static Map<String, List<KvGroupSpec>> groupsByModel(String text) {
        try {
            return KvGroupSpec.parseByModel(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(KV_GROUPS.flag() + ": " + e.getMessage(), e);
        }
    }

    /** Worker id → the configured groups of its model (or of every model). */
    static Function<String, List<KvGroupSpec>> groupsByWorker(WorkerRegistry workers,
                                                              Map<String, List<KvGroupSpec>> byModel) {
        if (byModel.isEmpty()) {
            return id -> List.of();
        }
        List<KvGroupSpec> every = byModel.getOrDefault(KvGroupSpec.EVERY_MODEL, List.of());
        return id -> workers.get(id).map(Worker::modelId).map(m -> byModel.getOrDefault(m, every)).orElse(every);
    }

    /** What {@code kv_aware} instances share: the index, the self-check and the tokenizer source. */
    public KvGroundTruth groundTruth() {
        requirePolicyEnvironment();
        return new KvGroundTruth(index, parity, tokenizers);
    }

    /** Builds the pipeline on the gateway's policies and binds its beans; the route manager starts listening. */
    @Override
    public void wire(Wiring w) {
        requirePolicyEnvironment();
        PolicyRegistry policies = w.get(Wiring.POLICY_REGISTRY, PolicyRegistry.class);
        List<KvEventSink> sinks = new ArrayList<>(List.of(parity));
        if (settings.pollsCapacity()) {
            calibrator = new TreeCalibrator(w.workers(), policies, capacities, settings.charsPerToken(),
                    settings.blockSize());
        }
        if (settings.calibrateTree()) {
            sinks.add(calibrator);
        }
        ingestor = new KvEventIngestor(index, sinks, settings.replayTimeout(), System::nanoTime,
                worker -> routedTo(worker.id()));
        KvMetrics metrics = new KvMetrics(w.meters(), ingestor, index, parity, calibrator, System::nanoTime);
        List<Consumer<String>> forget = new ArrayList<>(List.of(index::removeWorker, parity::removeWorker,
                capacities::forget, routed::remove));
        if (calibrator != null) {
            forget.add(calibrator::forget);
        }
        routes = new KvRouteManager(settings, ingestor, metrics, forget);
        w.workers().addListener(routes);
        w.bind(KV_BLOCK_INDEX, index);
        w.bind(KV_PARITY_TRACKER, parity);
        w.bind(KV_EVENT_INGESTOR, ingestor);
        w.bind(KV_ROUTE_MANAGER, routes);
        w.bind(KV_METRICS, metrics);
        w.bind(DECODE_KV_BATCH, new DecodeKvBatchProcessor(ingestor));
        w.bind(APPLY_KV_EVENTS, new ApplyKvEventsProcessor(ingestor));
        w.bind(CHECK_KV_PUBLISHERS, new CheckKvPublishersProcessor(ingestor, settings.silenceThreshold()));
        w.bind(PLAN_KV_CAPACITY_POLL, new PlanKvCapacityPollProcessor(w.workers(), capacities, System::nanoTime,
                this::asksEngine));
        w.bind(APPLY_KV_CAPACITY, new ApplyKvCapacityProcessor(capacities,
                settings.treeSizeAuto() ? calibrator : null, routes::ensureRanks));
        Duration silence = settings.silenceThreshold();
        w.property("caravan.derived.kv-silence-check-enabled", Boolean.toString(!silence.isZero()));
        w.property("caravan.derived.kv-silence-check-period-ms",
                Long.toString(Math.max(250, Math.min(5_000, silence.toMillis() / 2))));
    }

    private void requirePolicyEnvironment() {
        if (index == null) {
            throw new IllegalStateException("KvFeature.policyEnvironment must run first");
        }
    }

    /**
     * Whether the engine poll asks this worker: every worker for the tree's capacity (calibration, auto budgets), and
     * those whose KV events we consume for their data-parallel size unless their registration declared it.
     */
    private boolean asksEngine(Worker w) {
        return settings.pollsCapacity()
                || (!w.dataParallelSizeDeclared() && KvEndpoints.of(w, settings).publishes());
    }

    /** Counts every decision per worker: the traffic the silence check compares with a publisher's events. */
    public Consumer<Decision> decisions() {
        return d -> {
            if (!d.isEmpty()) {
                routed.computeIfAbsent(d.worker().id(), id -> new LongAdder()).increment();
            }
        };
    }

    private long routedTo(String workerId) {
        LongAdder a = routed.get(workerId);
        return a == null ? 0 : a.sum();
    }

    /** The started context: KV-event routes are created from now on. */
    @Override
    public void start(CamelContext context) {
        routes.start(context);
    }

    public KvSettings settings() {
        return settings;
    }

    public KvBlockIndex index() {
        return index;
    }

    public ParityTracker parity() {
        return parity;
    }

    public KvEventIngestor ingestor() {
        return ingestor;
    }

    public KvRouteManager routes() {
        return routes;
    }

    public KvCapacities capacities() {
        return capacities;
    }

    /** The tree calibration, or null when neither {@code --kv-calibrate-tree} nor {@code --max-tree-size auto}. */
    public TreeCalibrator calibrator() {
        return calibrator;
    }

    @Override
    public void close() {
        if (routes != null) {
            routes.close();
        }
        if (ingestor != null) {
            ingestor.close();
        }
        if (tokenizers != null) {
            tokenizers.close();
        }
    }
}
