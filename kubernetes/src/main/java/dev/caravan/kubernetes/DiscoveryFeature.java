package dev.caravan.kubernetes;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.time.Duration;
import java.util.List;

import dev.caravan.components.podwatch.PodWatchConfiguration;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.OptionalFeature;
import dev.caravan.processors.feature.Wiring;

/**
 * Kubernetes service discovery's part of the gateway: its settings (the rows below; the switch,
 * {@code --service-discovery}, is the core's {@link CoreFlags#SERVICE_DISCOVERY}) and, with the switch on, the beans
 * {@code routes/discovery.camel.yaml} references ({@code reconcileWorkers}, {@code discoveryMetrics}, and the
 * {@code workerReconciler} behind them); without it the route file is not loaded at all, so a gateway that does not
 * discover never talks to a Kubernetes API server. An {@link OptionalFeature}: the gateway finds it when this module is
 * on the class path ({@code META-INF/services}).
 */
public final class DiscoveryFeature implements OptionalFeature {

    private static final FlagRows ROWS = new FlagRows();

    /** A Kubernetes annotation key: non-empty, no whitespace. */
    private static final String ANNOTATION_KEY = "\\S+";
    private static final String ANNOTATION_KEY_MEANING = "an annotation key without spaces";
    /** SGLang's default {@code --service-discovery-port} (its Python launcher and Rust CLI agree on 80). */
    public static final int DEFAULT_PORT = 80;
    /** SGLang's default {@code --bootstrap-port-annotation}. */
    public static final String DEFAULT_BOOTSTRAP_PORT_ANNOTATION = "sglang.ai/bootstrap-port";
    /** Caravan's annotation for the model id a pod serves. */
    public static final String DEFAULT_MODEL_ANNOTATION = "caravan.dev/model";
    /** Caravan's annotation for a pod's KV-event PUB endpoint, e.g. {@code tcp://*:5557} or just {@code 5557}. */
    public static final String DEFAULT_KV_EVENTS_ANNOTATION = "caravan.dev/kv-events-endpoint";
    /** Caravan's annotation for a pod's KV-event replay endpoint, e.g. {@code tcp://*:5558} or {@code 5558}. */
    public static final String DEFAULT_KV_REPLAY_ANNOTATION = "caravan.dev/kv-replay-endpoint";
    /** Default resync interval, the {@code pod-watch:} consumer's: SGLang restarts its watcher every 120 s. */
    public static final Duration DEFAULT_RESYNC_INTERVAL =
            Duration.ofMillis(PodWatchConfiguration.DEFAULT_RESYNC_INTERVAL_MS);
    public static final CaravanFlag SELECTOR = ROWS.row("--selector", "caravan.discovery.selector",
            LIST, Sections.DISCOVERY)
            .describe("Labels (k=v ...) a pod must all carry to be a regular worker.");
    public static final CaravanFlag PREFILL_SELECTOR = ROWS.row("--prefill-selector", "caravan.discovery.prefill-selector",
            LIST, Sections.DISCOVERY)
            .describe("P/D: labels (k=v ...) of prefill pods; checked before --decode-selector.");
    public static final CaravanFlag DECODE_SELECTOR = ROWS.row("--decode-selector", "caravan.discovery.decode-selector",
            LIST, Sections.DISCOVERY)
            .describe("P/D: labels (k=v ...) of decode pods.");
    public static final CaravanFlag SERVICE_DISCOVERY_PORT = ROWS.row("--service-discovery-port", "caravan.discovery.port",
            INT, Sections.DISCOVERY)
            .defaultValue(DEFAULT_PORT).range(1, 65535)
            .describe("Engine port on each pod; the worker URL is http://podIP:port.");
    public static final CaravanFlag SERVICE_DISCOVERY_NAMESPACE = ROWS.row("--service-discovery-namespace",
            "caravan.discovery.namespace", STRING, Sections.DISCOVERY)
            .describe("Namespace whose pods are watched; unset watches all namespaces (needs a ClusterRole).");
    public static final CaravanFlag BOOTSTRAP_PORT_ANNOTATION = ROWS.row("--bootstrap-port-annotation",
            "caravan.discovery.bootstrap-port-annotation", STRING, Sections.DISCOVERY)
            .defaultValue(DEFAULT_BOOTSTRAP_PORT_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding a prefill pod's KV bootstrap port.");
    public static final CaravanFlag MODEL_ANNOTATION = ROWS.row("--model-annotation", "caravan.discovery.model-annotation",
            STRING, Sections.DISCOVERY)
            .defaultValue(DEFAULT_MODEL_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding the model id the pod serves (absent: it serves any model).");
    public static final CaravanFlag KV_EVENTS_ANNOTATION = ROWS.row("--kv-events-annotation",
            "caravan.discovery.kv-events-annotation", STRING, Sections.DISCOVERY)
            .defaultValue(DEFAULT_KV_EVENTS_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding the engine's KV-event PUB endpoint (tcp://*:5557 or 5557; * becomes the "
                    + "pod IP).");
    public static final CaravanFlag KV_REPLAY_ANNOTATION = ROWS.row("--kv-replay-annotation",
            "caravan.discovery.kv-replay-annotation", STRING, Sections.DISCOVERY)
            .defaultValue(DEFAULT_KV_REPLAY_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding the engine's KV-event replay endpoint (tcp://*:5558 or 5558).");
    public static final CaravanFlag DISCOVERY_RESYNC_INTERVAL = ROWS.row("--discovery-resync-interval",
            "caravan.discovery.resync-interval", LONG, Sections.DISCOVERY)
            .defaultValue(DEFAULT_RESYNC_INTERVAL.toSeconds()).range(0, FlagRows.MAX_SECONDS)
            .describe("Seconds between full pod re-lists that reconcile the workers besides the watch; 0 disables.");

    /** The route file that exists only with {@code --service-discovery}. */
    public static final String ROUTES_FILE = "discovery.camel.yaml";

    /** The feature's name in messages. */
    public static final String NAME = "Kubernetes service discovery";

    /** Bean names the discovery route references (the gateway's own are named on their feature classes). */
    public static final String RECONCILE_WORKERS = "reconcileWorkers";
    /** The pod-watch consumer's {@code watchListener}. */
    public static final String DISCOVERY_METRICS = "discoveryMetrics";
    public static final String WORKER_RECONCILER = "workerReconciler";

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String artifact() {
        return "dev.caravan:caravan-kubernetes";
    }

    @Override
    public String routesFile() {
        return ROUTES_FILE;
    }

    @Override
    public boolean enabled(GatewayConfig config) {
        return config.getBoolean(CoreFlags.SERVICE_DISCOVERY);
    }

    /** A P/D selector is set: the discovered fleet has prefill and decode workers. */
    @Override
    public boolean discoversPrefillDecode(GatewayConfig config) {
        return enabled(config)
                && (!config.getList(PREFILL_SELECTOR).isEmpty() || !config.getList(DECODE_SELECTOR).isEmpty());
    }

    /**
     * The discovery settings from the flag table.
     *
     * @throws IllegalArgumentException naming the flag, e.g. when no selector is given
     */
    public static DiscoveryConfig discoveryConfig(GatewayConfig config) {
        return new DiscoveryConfig(
                LabelSelector.parse(config.getList(SELECTOR)),
                LabelSelector.parse(config.getList(PREFILL_SELECTOR)),
                LabelSelector.parse(config.getList(DECODE_SELECTOR)),
                config.getInt(SERVICE_DISCOVERY_PORT),
                config.get(SERVICE_DISCOVERY_NAMESPACE),
                config.get(BOOTSTRAP_PORT_ANNOTATION),
                config.get(MODEL_ANNOTATION),
                config.get(KV_EVENTS_ANNOTATION),
                config.get(KV_REPLAY_ANNOTATION),
                Duration.ofSeconds(config.getLong(DISCOVERY_RESYNC_INTERVAL)));
    }

    /** Binds the discovery beans ({@code --service-discovery} is set). */
    @Override
    public void wire(Wiring w) {
        DiscoveryMetrics metrics = new DiscoveryMetrics(w.meters());
        WorkerReconciler reconciler = new WorkerReconciler(w.workers(), new PodClassifier(discoveryConfig(w.config())),
                metrics);
        w.bind(DISCOVERY_METRICS, metrics);
        w.bind(WORKER_RECONCILER, reconciler);
        w.bind(RECONCILE_WORKERS, new ReconcileWorkersProcessor(reconciler));
    }
}
