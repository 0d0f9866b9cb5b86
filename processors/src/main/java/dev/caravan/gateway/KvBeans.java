package dev.caravan.gateway;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;

import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEventSink;
import dev.caravan.policies.kv.KvGroundTruth;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.kv.ApplyKvCapacityProcessor;
import dev.caravan.processors.kv.ApplyKvEventsProcessor;
import dev.caravan.processors.kv.CheckKvPublishersProcessor;
import dev.caravan.processors.kv.DecodeKvBatchProcessor;
import dev.caravan.processors.kv.KvCapacities;
import dev.caravan.processors.kv.KvEndpoints;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.kv.KvMetrics;
import dev.caravan.processors.kv.KvRouteManager;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.tokens.KvTokenizers;
import dev.caravan.processors.kv.PlanKvCapacityPollProcessor;
import dev.caravan.processors.kv.TreeCalibrator;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.routing.RoutingFeature;

/**
 * The KV-event part of the gateway (docs/kv-events.md): the shared {@link KvBlockIndex} and {@link ParityTracker} that
 * {@code kv_aware} routes on ({@link #groundTruth()}, injected into the policies' environment before any policy
 * exists), the ingestor that feeds them, the optional tree calibration, the per-worker route manager, the meters, and
 * the steps {@code routes/kv-events.camel.yaml} references: {@code decodeKvBatch}, {@code applyKvEvents},
 * {@code checkKvPublishers}, {@code planKvCapacityPoll}, {@code applyKvCapacity}.
 *
 * <p>Lifecycle: constructed before the policies, {@link #define} once they exist, {@link #start} once the Camel context
 * has started (routes are created from the YAML template from then on), {@link #close} after it stopped.
 */
public final class KvBeans implements AutoCloseable {

    private final KvSettings settings;
    private final WorkerRegistry workers;
    private final MeterRegistry meters;
    private final KvBlockIndex index;
    private final ParityTracker parity;
    private final KvTokenizers tokenizers;
    private final KvCapacities capacities = new KvCapacities();
    private final Map<String, LongAdder> routed = new ConcurrentHashMap<>();
    private KvEventIngestor ingestor;
    private KvRouteManager routes;
    private TreeCalibrator calibrator;

    /** Reads the KV settings and {@code --kv-add-special-tokens} from {@code config}. */
    public KvBeans(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters) {
        this.settings = settings(config);
        this.tokenizers = new KvTokenizers(config.getBoolean(KvFeature.KV_ADD_SPECIAL_TOKENS));
        this.workers = workers;
        this.meters = meters;
        this.index = new KvBlockIndex(settings.maxBlocksPerWorker());
        this.parity = new ParityTracker(settings.parityConfig(), System::nanoTime);
    }

    /** The KV-event settings from the flag table (values already checked against their rows). */
    static KvSettings settings(GatewayConfig config) {
        return new KvSettings(config.get(KvFeature.KV_EVENTS_ENDPOINT_TEMPLATE),
                config.get(KvFeature.KV_REPLAY_ENDPOINT_TEMPLATE),
                config.get(KvFeature.KV_EVENTS_TOPIC),
                config.getSeconds(KvFeature.KV_REPLAY_TIMEOUT_SECS),
                config.getInt(KvFeature.KV_MAX_BLOCKS_PER_WORKER),
                config.getSeconds(KvFeature.KV_SILENCE_THRESHOLD_SECS),
                config.getBoolean(KvFeature.KV_CALIBRATE_TREE),
                config.get(RoutingFeature.MAX_TREE_SIZE).equals(RoutingFeature.AUTO),
                config.getInt(KvFeature.KV_CHARS_PER_TOKEN),
                config.getInt(KvFeature.KV_BLOCK_SIZE),
                config.getSeconds(KvFeature.KV_PARITY_EXPIRY_SECS),
                config.getDouble(KvFeature.KV_PARITY_WARN_BELOW));
    }

    /** What {@code kv_aware} instances share: the index, the self-check and the tokenizer source. */
    public KvGroundTruth groundTruth() {
        return new KvGroundTruth(index, parity, tokenizers);
    }

    /** Builds the pipeline on the gateway's policies and adds its beans; the route manager starts listening. */
    void define(PolicyRegistry policies, Map<String, Object> beans) {
        List<KvEventSink> sinks = new ArrayList<>(List.of(parity));
        if (settings.pollsCapacity()) {
            calibrator = new TreeCalibrator(workers, policies, capacities, settings.charsPerToken(),
                    settings.blockSize());
        }
        if (settings.calibrateTree()) {
            sinks.add(calibrator);
        }
        ingestor = new KvEventIngestor(index, sinks, settings.replayTimeout(), System::nanoTime,
                w -> routedTo(w.id()));
        KvMetrics metrics = new KvMetrics(meters, ingestor, index, parity, calibrator, System::nanoTime);
        List<Consumer<String>> forget = new ArrayList<>(List.of(index::removeWorker, parity::removeWorker,
                capacities::forget, routed::remove));
        if (calibrator != null) {
            forget.add(calibrator::forget);
        }
        routes = new KvRouteManager(settings, ingestor, metrics, forget);
        workers.addListener(routes);
        beans.put(BeanNames.KV_BLOCK_INDEX, index);
        beans.put(BeanNames.KV_PARITY_TRACKER, parity);
        beans.put(BeanNames.KV_EVENT_INGESTOR, ingestor);
        beans.put(BeanNames.KV_ROUTE_MANAGER, routes);
        beans.put(BeanNames.KV_METRICS, metrics);
        beans.put(BeanNames.DECODE_KV_BATCH, new DecodeKvBatchProcessor(ingestor));
        beans.put(BeanNames.APPLY_KV_EVENTS, new ApplyKvEventsProcessor(ingestor));
        beans.put(BeanNames.CHECK_KV_PUBLISHERS, new CheckKvPublishersProcessor(ingestor, settings.silenceThreshold()));
        beans.put(BeanNames.PLAN_KV_CAPACITY_POLL, new PlanKvCapacityPollProcessor(workers, capacities,
                System::nanoTime, this::asksEngine));
        beans.put(BeanNames.APPLY_KV_CAPACITY, new ApplyKvCapacityProcessor(capacities,
                settings.treeSizeAuto() ? calibrator : null, routes::ensureRanks));
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
    public void start(CamelContext context) {
        routes.start(context);
    }

    /** Values {@code kv-events.camel.yaml} reads as {@code caravan.derived.kv-*} placeholders. */
    Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>();
        Duration silence = settings.silenceThreshold();
        p.put("caravan.derived.kv-silence-check-enabled", Boolean.toString(!silence.isZero()));
        p.put("caravan.derived.kv-silence-check-period-ms",
                Long.toString(Math.max(250, Math.min(5_000, silence.toMillis() / 2))));
        return p;
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
        tokenizers.close();
    }
}
