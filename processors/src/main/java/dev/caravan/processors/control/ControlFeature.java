package dev.caravan.processors.control;

import static dev.caravan.processors.config.FlagType.LONG;

import java.time.Duration;
import java.util.List;

import org.apache.camel.CamelContext;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.control.PlanControlCallsProcessor.Scope;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.reliability.WorkerBreakers;
import dev.caravan.processors.routing.PolicyPools;
import dev.caravan.processors.tls.TlsSettings;

/**
 * The control plane (control.camel.yaml): calls to every worker (load polls, model lists, cache flushes) and policy
 * housekeeping. Wires the per-worker control routes ({@link WorkerControlRoutes}, a worker listener; each route runs
 * its calls through the worker's shared breaker), the steps of a control call ({@code prepareControlCall},
 * {@code callWorker}, {@code checkControlAnswer}, {@code recordControlFailure}) and of the fan-out
 * ({@code collectControlResults}), the load monitor ({@code planLoadPoll}, {@code applyEngineLoads}), the maintenance
 * timer ({@code runMaintenance}) and {@code summarizeFlushCache} on the pools the features before it added to the
 * shared {@link PolicyPools}; sets the timers' {@code caravan.derived.*} values. {@link #start} creates the routes of
 * the workers registered so far; {@link #close} stops making routes.
 */
public final class ControlFeature implements Feature {

    // ---- bean names (control.camel.yaml, admin.camel.yaml) ----------------------------------------------------------

    public static final String PREPARE_CONTROL_CALL = "prepareControlCall";
    public static final String CALL_WORKER = "callWorker";
    public static final String RECORD_CONTROL_FAILURE = "recordControlFailure";
    public static final String CHECK_CONTROL_ANSWER = "checkControlAnswer";
    /** Creates and removes the per-worker control routes ({@code worker-control} routeTemplate). */
    public static final String WORKER_CONTROL_ROUTES = "workerControlRoutes";
    /** The {@code direct:call-workers} split's aggregation strategy. */
    public static final String COLLECT_CONTROL_RESULTS = "collectControlResults";
    public static final String PLAN_LOAD_POLL = "planLoadPoll";
    public static final String APPLY_ENGINE_LOADS = "applyEngineLoads";
    public static final String RUN_MAINTENANCE = "runMaintenance";
    /** {@code POST /flush_cache}'s answer; the flushed engines are forgotten in their role's pool. */
    public static final String SUMMARIZE_FLUSH_CACHE = "summarizeFlushCache";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag CONTROL_TIMEOUT_SECS = ROWS.row("--control-timeout-secs", "caravan.control-timeout-secs",
            LONG, Sections.CONTROL)
            .defaultValue(GatewayConfig.DEFAULT_CONTROL_TIMEOUT_SECS).range(1, FlagRows.MAX_SECONDS)
            .describe("Limit for one control-plane call (load poll, /flush_cache, /v1/models, /get_loads), in "
                    + "seconds.");

    private WorkerControlRoutes controlRoutes;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        WorkerRegistry workers = w.workers();
        PolicyPools pools = w.shared(PolicyPools.class);
        controlRoutes = new WorkerControlRoutes(w.shared(WorkerBreakers.class));
        workers.addListener(controlRoutes);
        w.bind(WORKER_CONTROL_ROUTES, controlRoutes);
        w.bind(PREPARE_CONTROL_CALL, new PrepareControlCallProcessor(config.apiKey()));
        w.bind(CALL_WORKER, new CallWorkerProcessor(w.vertx(),
                Duration.ofSeconds(config.getLong(CONTROL_TIMEOUT_SECS)), w.shared(TlsSettings.class)));
        w.bind(CHECK_CONTROL_ANSWER, new CheckControlAnswerProcessor());
        w.bind(RECORD_CONTROL_FAILURE, new RecordControlFailureProcessor());
        w.bind(COLLECT_CONTROL_RESULTS, new CollectControlResultsStrategy());
        w.bind(PLAN_LOAD_POLL, new PlanControlCallsProcessor(workers, Scope.ALL, "GET",
                List.of(ApplyEngineLoadsProcessor.GET_LOAD, ApplyEngineLoadsProcessor.METRICS)));
        w.bind(APPLY_ENGINE_LOADS, new ApplyEngineLoadsProcessor(System::nanoTime));
        w.bind(RUN_MAINTENANCE, new RunMaintenanceProcessor(pools.maintained(), System::nanoTime));
        w.bind(SUMMARIZE_FLUSH_CACHE, new SummarizeFlushCacheProcessor(workers, pools.flushed()));
        long loadInterval = config.getLong(CoreFlags.LOAD_CHECK_INTERVAL);
        w.property("caravan.derived.load-monitor-enabled", Boolean.toString(loadInterval > 0));
        w.property("caravan.derived.load-monitor-period-ms", Long.toString(Math.max(1, loadInterval) * 1000));
        w.property("caravan.derived.control-timeout-ms", Long.toString(config.getLong(CONTROL_TIMEOUT_SECS) * 1000));
    }

    /** The per-worker control routes; null before {@link #wire}. */
    public WorkerControlRoutes controlRoutes() {
        return controlRoutes;
    }

    @Override
    public void start(CamelContext context) {
        controlRoutes.start(context);
    }

    @Override
    public void close() {
        if (controlRoutes != null) {
            controlRoutes.close();
        }
    }
}
