package dev.caravan.processors.kv;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.model.ModelCamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;
import dev.caravan.processors.RouteChangeThread;
import dev.caravan.processors.RouteChanges;
import dev.caravan.processors.WhenFullyStarted;

/**
 * One KV-event route per engine rank that publishes events, instantiated from the YAML {@code routeTemplate}
 * {@value #TEMPLATE_ID} ({@code routes/kv-events.camel.yaml}) when the worker is registered and removed when it leaves.
 *
 * <p>On registration of worker W with effective endpoints ({@link KvEndpoints#of}: its own, else the templates), in
 * order: {@link KvEventIngestor#register}, the per-worker meters, then route {@code kv-events-<W.id>} for rank 0 with
 * template parameters {@code workerId}, {@code endpoint} (the PUB endpoint), {@code topics} ({@code --kv-events-topic})
 * and {@code rank}. A worker whose engine runs N data-parallel ranks (declared {@code dp_size}, or reported by the
 * engine and applied through {@link #ensureRanks}) gets routes {@code kv-events-<W.id>-dp<r>} for ranks 1..N-1 on
 * {@link ReplayEndpoints#forRank}(endpoint, r) — vLLM's and SGLang's {@code offset_endpoint_port}. A worker that is
 * one rank r of an engine ({@code --dp-aware}, {@link Worker#dataParallelRank()}) gets the one route of that rank
 * ({@code kv-events-<W.id>-dp<r>}, or without suffix for rank 0); the engine worker it replaces gives up its routes
 * when the first rank worker arrives. With vLLM's example
 * ports (5557 events, 5558 replay) rank 1's events port is rank 0's replay port; the manager warns about such
 * collisions. On removal: the worker's routes are stopped and removed first (so no event re-registers W), then the
 * ingestor, the meters and every {@code forgetter} (block index, parity, capacities, calibration) drop W.
 *
 * <p>Threading: every change runs on the manager's own {@link RouteChangeThread}, in registration order (stopping a
 * ZeroMQ consumer waits for its thread), and none once the context is stopping. Workers registered before the Camel
 * context started (the {@code --worker-urls}) wait until {@link #start} hands over the started context.
 */
public final class KvRouteManager implements WorkerListener, AutoCloseable {

    /** The route template's id in the YAML. */
    public static final String TEMPLATE_ID = "kv-events";
    /** Route ids are this prefix plus the worker id. */
    public static final String ROUTE_PREFIX = "kv-events-";

    private static final Logger LOG = LoggerFactory.getLogger(KvRouteManager.class);
    private static final long STOP_TIMEOUT_SECONDS = 10;
    /**
     * Tries to create a rank's route before giving up on it: Camel has refused one now and then while the gateway
     * starts (a ConcurrentModificationException resolving the ZeroMQ endpoint, seen in benchmark runs), and a worker
     * without its route is invisible to kv_aware.
     */
    static final int ROUTE_ATTEMPTS = 5;
    /** Wait before the second attempt, doubled before each next one (0.5 + 1 + 2 + 4 s). */
    static final long FIRST_RETRY_MS = 500;

    private final KvSettings settings;
    private final KvEventIngestor ingestor;
    private final KvMetrics metrics;
    private final List<Consumer<String>> forgetters;
    private final RouteChangeThread changes = new RouteChangeThread("caravan-kv-routes", "KV-event route changes");
    private final AtomicLong failedAttempts = new AtomicLong();
    private final Map<String, Worker> pending = new LinkedHashMap<>();
    private final Set<String> routes = ConcurrentHashMap.newKeySet();
    /** Ranks with a route, per worker id (the manager's thread only). */
    private final Map<String, Integer> ranks = new HashMap<>();
    /** The workers with routes, by id (the manager's thread only). */
    private final Map<String, Worker> routed = new HashMap<>();
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

    /** The route id of a worker's rank-0 KV-event route. */
    public static String routeId(Worker worker) {
        return routeId(worker, 0);
    }

    /** The route id of the KV-event route of one of the worker's DP ranks. */
    public static String routeId(Worker worker, int rank) {
        return ROUTE_PREFIX + worker.id() + (rank == 0 ? "" : "-dp" + rank);
    }

    /** Adds the routes of ranks the worker's engine now reports ({@link Worker#dataParallelSize()}) but has none for. */
    public void ensureRanks(Worker worker) {
        submit(() -> {
            Integer have = ranks.get(worker.id());
            if (camel != null && have != null && worker.dataParallelRank() == null
                    && have < worker.dataParallelSize()) {
                KvEndpoints endpoints = KvEndpoints.of(worker, settings);
                for (int r = have; r < worker.dataParallelSize(); r++) {
                    addRank(worker, endpoints, r);
                }
                warnOnCollisions(worker, endpoints);
            }
        });
    }

    /**
     * Hands over the context: once it has fully started (at once when it has), the routes of the workers registered
     * so far are created, and later ones as they come. Adding routes while the context is still starting could leave
     * them unstarted, hence the wait.
     */
    public void start(CamelContext context) {
        changes.stopWith(context); // Camel's stop walks the routes: no route may come or go meanwhile
        WhenFullyStarted.run(context, this::handOver);
    }

    private void handOver(CamelContext context) {
        submit(() -> {
            camel = context;
            pending.values().forEach(this::add);
            pending.clear();
        });
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        submit(() -> {
            if (camel == null) {
                pending.put(worker.id(), worker);
            } else {
                add(worker);
            }
        });
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        submit(() -> {
            pending.remove(worker.id());
            remove(worker);
        });
    }

    /** Ids of the KV-event routes this manager created and has not removed (a snapshot). */
    public Set<String> routeIds() {
        return Set.copyOf(routes);
    }

    private void add(Worker worker) {
        if (worker.dataParallelRank() != null) {
            retireSplitEngine(worker);
        }
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
        ranks.put(worker.id(), 0);
        routed.put(worker.id(), worker);
        addRanks(worker, endpoints, worker.firstRank(), 1);
    }

    /**
     * Creates the routes of ranks {@code from} on; a refused one is tried again later (the same worker still routed)
     * up to {@link #ROUTE_ATTEMPTS} times, after which a worker without its first rank's route is dropped.
     */
    private void addRanks(Worker worker, KvEndpoints endpoints, int from, int attempt) {
        for (int r = from; r < worker.firstRank() + worker.rankCount(); r++) {
            if (addRank(worker, endpoints, r)) {
                continue;
            }
            failedAttempts.incrementAndGet();
            int rank = r;
            if (attempt < ROUTE_ATTEMPTS) {
                long delay = FIRST_RETRY_MS << (attempt - 1);
                LOG.info("KV-event route of {} rank {}: attempt {} of {} in {} ms", worker.url(), rank, attempt + 1,
                        ROUTE_ATTEMPTS, delay);
                changes.schedule(() -> {
                    if (routed.get(worker.id()) == worker) {
                        addRanks(worker, endpoints, rank, attempt + 1);
                    }
                }, delay);
            } else if (rank == worker.firstRank()) {
                LOG.warn("KV-event route of {} not created after {} attempts: kv_aware does not see its blocks",
                        worker.url(), ROUTE_ATTEMPTS);
                ranks.remove(worker.id());
                routed.remove(worker.id());
                metrics.unbind(worker.id());
                ingestor.unregister(worker.id());
            }
            return;
        }
        warnOnCollisions(worker, endpoints);
    }

    /** Route creations Camel refused so far (each retried up to {@link #ROUTE_ATTEMPTS} times). */
    public long failedAttempts() {
        return failedAttempts.get();
    }

    /** Creates the route of one rank; false when Camel refused it (logged). */
    private boolean addRank(Worker worker, KvEndpoints endpoints, int rank) {
        String id = routeId(worker, rank);
        String endpoint = ReplayEndpoints.forRank(endpoints.events(), rank);
        try {
            RouteChanges.run(camel, () -> TemplatedRouteBuilder.builder(camel, TEMPLATE_ID).routeId(id)
                    .parameter("workerId", worker.id())
                    .parameter("endpoint", endpoint)
                    .parameter("topics", settings.topics())
                    .parameter("rank", Integer.toString(rank))
                    .add());
            routes.add(id);
            ranks.merge(worker.id(), rank + 1, Math::max);
            String replay = endpoints.replay() == null ? "none" : ReplayEndpoints.forRank(endpoints.replay(), rank);
            LOG.info("KV-event route {} subscribes to {} (replay {}) for {} rank {}", id, endpoint, replay,
                    worker.url(), rank);
            return true;
        } catch (Exception e) {
            LOG.warn("Cannot create the KV-event route of {} rank {} on {}: {}", worker.url(), rank, endpoint,
                    e.toString());
            return false;
        }
    }

    /** vLLM offsets both ports by rank: a replay port inside the events range makes a SUB meet a ROUTER. */
    private static void warnOnCollisions(Worker worker, KvEndpoints endpoints) {
        int n = worker.dataParallelSize();
        if (endpoints.replay() == null || n < 2) {
            return;
        }
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (ReplayEndpoints.forRank(endpoints.replay(), a).equals(ReplayEndpoints.forRank(endpoints.events(), b))) {
                    LOG.warn("KV endpoints of {} collide: rank {}'s replay endpoint is rank {}'s events endpoint ({})."
                            + " Engines offset both ports by rank: choose a replay port >= events port + {} (the DP"
                            + " size)", worker.url(), a, b, ReplayEndpoints.forRank(endpoints.events(), b), n);
                    return;
                }
            }
        }
    }

    /**
     * {@code --dp-aware} replaces an engine by its rank workers, adding them before removing it: the engine's routes
     * hold the ranks' endpoints until then, so they go now (its removal that follows finds nothing left to do).
     */
    private void retireSplitEngine(Worker rankWorker) {
        for (Worker w : List.copyOf(routed.values())) {
            if (w.dataParallelRank() == null && w.engineUrl().equals(rankWorker.engineUrl())) {
                LOG.info("KV-event routes of {} make way for its rank workers", w.url());
                remove(w);
            }
        }
    }

    private void remove(Worker worker) {
        routed.remove(worker.id());
        Integer n = ranks.remove(worker.id());
        for (int r = 0; r < (n == null ? 1 : Math.max(1, n)); r++) {
            String id = routeId(worker, r);
            if (routes.remove(id) && camel != null) {
                try {
                    camel.getRouteController().stopRoute(id, STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    RouteChanges.run(camel, () -> camel.removeRoute(id));
                    LOG.info("KV-event route {} removed: worker {} left", id, worker.url());
                } catch (Exception e) {
                    LOG.warn("Cannot remove KV-event route {}: {}", id, e.toString());
                }
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

    /** Runs a change on the manager's thread; none once the context is stopping. */
    private void submit(Runnable change) {
        changes.submit(change);
    }

    /** Stops the manager's thread; the routes themselves stop with the Camel context. */
    @Override
    public void close() {
        changes.close();
    }
}
