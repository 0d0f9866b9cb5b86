package dev.caravan.processors.kv;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.camel.CamelContext;
import org.apache.camel.ExtendedStartupListener;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.model.ModelCamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;

/**
 * One KV-event route per worker whose engine publishes events, instantiated from the YAML {@code routeTemplate}
 * {@value #TEMPLATE_ID} ({@code routes/kv-events.camel.yaml}) when the worker is registered and removed when it leaves.
 *
 * <p>On registration of worker W with effective endpoints ({@link KvEndpoints#of}: its own, else the templates), in
 * order: {@link KvEventIngestor#register}, the per-worker meters, then route {@code kv-events-<W.id>} with template
 * parameters {@code workerId}, {@code endpoint} (the PUB endpoint) and {@code topics} ({@code --kv-events-topic}). On
 * removal: the route is stopped and removed first (so no event re-registers W), then the ingestor, the meters and every
 * {@code forgetter} (block index, parity, capacities, calibration) drop W.
 *
 * <p>Threading: registry listeners run on whatever thread changed the registry — an admin request on a Vert.x event
 * loop, the discovery route, start-up — and stopping a ZeroMQ consumer waits for its thread, so every change runs on
 * this manager's own single thread, in registration order. Workers registered before the Camel context started (the
 * {@code --worker-urls}) wait until {@link #start} hands over the started context.
 */
public final class KvRouteManager implements WorkerListener, AutoCloseable {

    /** The route template's id in the YAML. */
    public static final String TEMPLATE_ID = "kv-events";
    /** Route ids are this prefix plus the worker id. */
    public static final String ROUTE_PREFIX = "kv-events-";

    private static final Logger LOG = LoggerFactory.getLogger(KvRouteManager.class);
    private static final long STOP_TIMEOUT_SECONDS = 10;

    private final KvSettings settings;
    private final KvEventIngestor ingestor;
    private final KvMetrics metrics;
    private final List<Consumer<String>> forgetters;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "caravan-kv-routes");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Worker> pending = new LinkedHashMap<>();
    private final Set<String> routes = ConcurrentHashMap.newKeySet();
    private CamelContext camel;
    private boolean warnedNoTemplate;

    /**
     * @param forgetters told the id of every worker that left, after its route is gone (index, parity, capacities...)
     */
    public KvRouteManager(KvSettings settings, KvEventIngestor ingestor, KvMetrics metrics,
                          List<Consumer<String>> forgetters) {
        this.settings = settings;
        this.ingestor = ingestor;
        this.metrics = metrics;
        this.forgetters = List.copyOf(forgetters);
    }

    /** The route id of a worker's KV-event route. */
    public static String routeId(Worker worker) {
        return ROUTE_PREFIX + worker.id();
    }

    /**
     * Hands over the context: once it has fully started (at once when it has), the routes of the workers registered
     * so far are created, and later ones as they come. Adding routes while the context is still starting could leave
     * them unstarted, hence the wait.
     */
    public void start(CamelContext context) {
        if (context.isStarted()) {
            handOver(context);
            return;
        }
        try {
            context.addStartupListener(new ExtendedStartupListener() {
                @Override
                public void onCamelContextStarted(CamelContext c, boolean alreadyStarted) {
                    // not yet: routes added now might not start
                }

                @Override
                public void onCamelContextFullyStarted(CamelContext c, boolean alreadyStarted) {
                    handOver(c);
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("cannot wait for the Camel context to start: " + e, e);
        }
    }

    private void handOver(CamelContext context) {
        executor.execute(() -> {
            camel = context;
            pending.values().forEach(this::add);
            pending.clear();
        });
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        executor.execute(() -> {
            if (camel == null) {
                pending.put(worker.id(), worker);
            } else {
                add(worker);
            }
        });
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        executor.execute(() -> {
            pending.remove(worker.id());
            remove(worker);
        });
    }

    /** Ids of the KV-event routes this manager created and has not removed (a snapshot). */
    public Set<String> routeIds() {
        return Set.copyOf(routes);
    }

    private void add(Worker worker) {
        KvEndpoints endpoints = KvEndpoints.of(worker, settings);
        if (!endpoints.publishes()) {
            LOG.debug("Worker {} has no KV-event endpoint; no KV-event route", worker.url());
            return;
        }
        if (((ModelCamelContext) camel).getRouteTemplateDefinition(TEMPLATE_ID) == null) {
            if (!warnedNoTemplate) {
                warnedNoTemplate = true;
                LOG.warn("No routeTemplate '{}' is loaded (with --routes, copy kv-events.camel.yaml there): KV events"
                        + " of {} and later workers are not consumed", TEMPLATE_ID, worker.url());
            }
            return;
        }
        ingestor.register(worker, endpoints);
        metrics.bind(worker);
        String id = routeId(worker);
        try {
            TemplatedRouteBuilder.builder(camel, TEMPLATE_ID).routeId(id)
                    .parameter("workerId", worker.id())
                    .parameter("endpoint", endpoints.events())
                    .parameter("topics", settings.topics())
                    .add();
            routes.add(id);
            LOG.info("KV-event route {} subscribes to {} (replay {}) for {}", id, endpoints.events(),
                    endpoints.replay() == null ? "none" : endpoints.replay(), worker.url());
        } catch (Exception e) {
            LOG.warn("Cannot create the KV-event route of {} on {}: {}", worker.url(), endpoints.events(), e.toString());
            metrics.unbind(worker.id());
            ingestor.unregister(worker.id());
        }
    }

    private void remove(Worker worker) {
        String id = routeId(worker);
        if (routes.remove(id) && camel != null) {
            try {
                camel.getRouteController().stopRoute(id, STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                camel.removeRoute(id);
                LOG.info("KV-event route {} removed: worker {} left", id, worker.url());
            } catch (Exception e) {
                LOG.warn("Cannot remove KV-event route {}: {}", id, e.toString());
            }
        }
        metrics.unbind(worker.id());
        ingestor.unregister(worker.id());
        for (Consumer<String> f : forgetters) {
            try {
                f.accept(worker.id());
            } catch (RuntimeException e) {
                LOG.warn("Cleaning up KV state of {} failed: {}", worker.url(), e.toString());
            }
        }
    }

    /** Stops the manager's thread; the routes themselves stop with the Camel context. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
