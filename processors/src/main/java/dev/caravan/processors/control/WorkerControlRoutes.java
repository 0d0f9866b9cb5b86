package dev.caravan.processors.control;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
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
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * One control-plane route per worker, instantiated from the YAML {@code routeTemplate} {@value #TEMPLATE_ID}
 * ({@code routes/control.camel.yaml}) when the worker joins and removed when it leaves. Every control call to the
 * worker ({@code direct:call-workers}: load polls, {@code /flush_cache}, server info, model listings,
 * {@code /health_generate}) goes through its route, whose circuitBreaker EIP uses the worker's own breaker.
 *
 * <p>On registration of worker W: route {@code worker-control-<W.id>} ({@code direct:worker-control-<W.id>}) is added
 * with template parameters {@code workerId} and {@code breaker}, and W's control view of its breaker
 * ({@link WorkerBreakers#controlBreaker}) as the template's local bean {@code caravanBreaker-<W.id>}, which the EIP's
 * {@code circuitBreaker} option looks up while the route is built. Nothing is written to the context's registry: its
 * beans are a plain map that other threads read meanwhile (a health check's scan of the registry failed with a
 * {@code ConcurrentModificationException} when a worker's bean was unbound). The route's node ids are prefixed with the
 * route id, so JMX names them apart (the EIP is {@code worker-control-<W.id>-breaker}). On removal: the route is
 * stopped and removed.
 *
 * <p>Threading and start-up as {@link dev.caravan.processors.kv.KvRouteManager}: every change runs on this manager's
 * own {@link RouteChangeThread} in registration order, none once the context is stopping (a route removed while
 * Camel's stop walked the routes failed the stop with a {@code ConcurrentModificationException}), and workers
 * registered before the Camel context has fully started wait for {@link #start}.
 */
public final class WorkerControlRoutes implements WorkerListener, AutoCloseable {

    /** The route template's id in the YAML. */
    public static final String TEMPLATE_ID = "worker-control";
    /** Route ids and {@code direct:} names are this prefix plus the worker id. */
    public static final String ROUTE_PREFIX = "worker-control-";
    /** The workers' breakers are their routes' local beans named this prefix plus the worker id. */
    public static final String BREAKER_PREFIX = "caravanBreaker-";

    private static final Logger LOG = LoggerFactory.getLogger(WorkerControlRoutes.class);
    private static final long STOP_TIMEOUT_SECONDS = 10;

    private final WorkerBreakers breakers;
    private final RouteChangeThread changes = new RouteChangeThread("caravan-control-routes", "Control route changes");
    private final Map<String, Worker> pending = new LinkedHashMap<>();
    private final Set<String> routes = ConcurrentHashMap.newKeySet();
    private CamelContext camel;
    private boolean warnedNoTemplate;

    public WorkerControlRoutes(WorkerBreakers breakers) {
        this.breakers = breakers;
    }

    /** The id of a worker's control route. */
    public static String routeId(Worker worker) {
        return ROUTE_PREFIX + worker.id();
    }

    /** The name of a worker's breaker among its control route's template-local beans. */
    public static String breakerBean(Worker worker) {
        return BREAKER_PREFIX + worker.id();
    }

    /** Hands over the context: the routes of the workers registered so far are created once it has fully started. */
    public void start(CamelContext context) {
        changes.stopWith(context); // Camel's stop walks the routes: no route may come or go meanwhile
        WhenFullyStarted.run(context, this::handOver);
    }

    private void handOver(CamelContext context) {
        changes.submit(() -> {
            camel = context;
            pending.values().forEach(this::add);
            pending.clear();
        });
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        changes.submit(() -> {
            if (camel == null) {
                pending.put(worker.id(), worker);
            } else {
                add(worker);
            }
        });
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        changes.submit(() -> {
            pending.remove(worker.id());
            remove(worker);
        });
    }

    /** Ids of the control routes this manager created and has not removed (a snapshot). */
    public Set<String> routeIds() {
        return Set.copyOf(routes);
    }

    private void add(Worker worker) {
        if (((ModelCamelContext) camel).getRouteTemplateDefinition(TEMPLATE_ID) == null) {
            if (!warnedNoTemplate) {
                warnedNoTemplate = true;
                LOG.error("No routeTemplate '{}' is loaded (with --routes, copy control.camel.yaml there): control calls"
                        + " to {} and later workers fail", TEMPLATE_ID, worker.url());
            }
            return;
        }
        String id = routeId(worker);
        String bean = breakerBean(worker);
        try {
            RouteChanges.run(camel, () -> TemplatedRouteBuilder.builder(camel, TEMPLATE_ID).routeId(id)
                    .prefixId(id + "-")
                    .parameter("workerId", worker.id())
                    .parameter("breaker", bean)
                    .bean(bean, CircuitBreaker.class, breakers.controlBreaker(worker))
                    .add());
            routes.add(id);
            LOG.debug("Control route {} for {}", id, worker.url());
        } catch (Exception e) {
            LOG.error("Cannot create the control route of {}: {}", worker.url(), e.toString());
        }
    }

    private void remove(Worker worker) {
        String id = routeId(worker);
        if (routes.remove(id) && camel != null) {
            try {
                camel.getRouteController().stopRoute(id, STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                RouteChanges.run(camel, () -> camel.removeRoute(id));
                LOG.debug("Control route {} removed: worker {} left", id, worker.url());
            } catch (Exception e) {
                LOG.warn("Cannot remove control route {}: {}", id, e.toString());
            }
        }
    }

    /** Stops the manager's thread; the routes themselves stop with the Camel context. */
    @Override
    public void close() {
        changes.close();
    }
}
