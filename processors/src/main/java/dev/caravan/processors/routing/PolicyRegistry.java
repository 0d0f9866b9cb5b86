package dev.caravan.processors.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.error.GatewayError;

/**
 * One policy instance per model (SGLang's per-model policy registry): cache_aware's tree for model A never sees model
 * B's prompts. A model's policy is created when its first worker registers (or a request first needs it) and dropped
 * when its last worker leaves; it is told about each of its workers joining and leaving.
 *
 * <p>Which workers serve a request ({@link #poolFor}):
 * <ol>
 *   <li>the request names a model some worker declares → those workers, that model's policy;</li>
 *   <li>otherwise the workers that declare no model (SGLang's non-IGW behaviour: the request's model is ignored), with
 *       the policy of {@link Worker#UNKNOWN_MODEL_ID};</li>
 *   <li>a named model that no worker declares while every worker declares some model → 404 {@code model_not_found};</li>
 *   <li>no model in the request (e.g. {@code /generate}) → the only model served, else the undeclared workers, else
 *       400 {@code model_required}.</li>
 * </ol>
 * One registry pools the workers of one {@link WorkerRole}: the regular pool, and in P/D mode one registry each for
 * the prefill and the decode pool, so each pool has its own policy instances and trees (a prefill lookup never evicts
 * a decode tenant). Thread-safe: lookups are lock-free; worker add/remove notifications are serialised.
 *
 * <p>Order: a pool lists its workers in registration order, which round_robin's cycle and every "earlier worker wins"
 * tie-break follow. With replica sync each replica registers workers in its own order (discovery timing), so the
 * registry is then built with {@code canonicalOrder}: pools are sorted by URL, the one order every replica shares
 * ({@code X-SMG-Target-Worker: i} names the same worker everywhere, ties break alike).
 */
public final class PolicyRegistry implements WorkerListener {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyRegistry.class);

    /** The workers and policy that serve one request; {@code policy} is null when there are no workers at all. */
    public record Pool(String model, List<Worker> workers, LoadBalancingPolicy policy) {
    }

    private final WorkerRegistry registry;
    private final WorkerRole role;
    private final Function<String, LoadBalancingPolicy> factory;
    private final boolean canonicalOrder;
    private final Map<String, LoadBalancingPolicy> byModel = new ConcurrentHashMap<>();
    private volatile Consumer<Worker> flushed = w -> { };
    private static final Comparator<Worker> BY_URL = Comparator.comparing(Worker::url);

    /**
     * @param registry the worker registry; this registers itself as a listener and adopts the workers already there
     * @param factory  creates a fresh policy for a model id
     */
    public PolicyRegistry(WorkerRegistry registry, Function<String, LoadBalancingPolicy> factory) {
        this(registry, WorkerRole.REGULAR, factory);
    }

    /**
     * @param registry the worker registry; this registers itself as a listener and adopts the workers already there
     * @param role     the pool: only workers of this role are pooled
     * @param factory  creates a fresh policy for a model id
     */
    public PolicyRegistry(WorkerRegistry registry, WorkerRole role, Function<String, LoadBalancingPolicy> factory) {
        this(registry, role, factory, false);
    }

    /**
     * @param registry       the worker registry; this registers itself as a listener and adopts the workers already there
     * @param role           the pool: only workers of this role are pooled
     * @param factory        creates a fresh policy for a model id
     * @param canonicalOrder pools sorted by URL instead of registration order (replica sync)
     */
    public PolicyRegistry(WorkerRegistry registry, WorkerRole role, Function<String, LoadBalancingPolicy> factory,
            boolean canonicalOrder) {
        this.registry = registry;
        this.role = role;
        this.factory = factory;
        this.canonicalOrder = canonicalOrder;
        registry.addListener(this);
        registry.all().forEach(this::onWorkerAdded);
    }

    /** The policy of a model, created on first use. */
    public LoadBalancingPolicy policyFor(String model) {
        return byModel.computeIfAbsent(Worker.normalizeModel(model), m -> {
            LoadBalancingPolicy p = factory.apply(m);
            LOG.info("Policy {} created for model {}", p.name(), m);
            return p;
        });
    }

    /** The role of the workers this registry pools. */
    public WorkerRole role() {
        return role;
    }

    /** The live policies by model; a snapshot. */
    public Map<String, LoadBalancingPolicy> policies() {
        return Map.copyOf(byModel);
    }

    /**
     * @param requestedModel the request's {@code model}, or null
     * @throws dev.caravan.processors.error.GatewayException 404 {@code model_not_found} / 400 {@code model_required}
     */
    public Pool poolFor(String requestedModel) {
        List<Worker> all = registry.list(null, role);
        if (canonicalOrder) {
            all.sort(BY_URL);
        }
        if (requestedModel != null && !requestedModel.isBlank()) {
            String m = Worker.normalizeModel(requestedModel);
            List<Worker> serving = ofModel(all, m);
            if (!serving.isEmpty()) {
                return new Pool(m, serving, policyFor(m));
            }
        }
        if (all.isEmpty()) {
            return new Pool(Worker.normalizeModel(requestedModel), List.of(), null);
        }
        List<Worker> undeclared = ofModel(all, Worker.UNKNOWN_MODEL_ID);
        if (!undeclared.isEmpty()) {
            return new Pool(Worker.UNKNOWN_MODEL_ID, undeclared, policyFor(Worker.UNKNOWN_MODEL_ID));
        }
        Set<String> models = new LinkedHashSet<>();
        all.forEach(w -> models.add(w.modelId()));
        if (requestedModel != null && !requestedModel.isBlank()) {
            throw GatewayError.MODEL_NOT_FOUND.exception("model '" + requestedModel + "' is not served; available: "
                    + String.join(", ", models));
        }
        if (models.size() == 1) {
            String only = models.iterator().next();
            return new Pool(only, all, policyFor(only));
        }
        throw GatewayError.MODEL_REQUIRED.exception("model is required: workers serve " + String.join(", ", models));
    }

    /**
     * Why a pool of this role is empty, for the 503: no workers at all, or only workers of other roles — with
     * {@code --pd-disaggregation} only prefill and decode workers, while embeddings and the Responses API, which stay
     * off the pairs ({@code choosePdMode}), need a regular worker.
     */
    public String emptyPoolReason() {
        Set<String> others = new TreeSet<>();
        registry.all().forEach(w -> others.add(w.role().wireName()));
        others.remove(role.wireName());
        if (others.isEmpty()) {
            return "No workers are registered";
        }
        return "No " + role.wireName() + " workers are registered (the registered ones are " + String.join(" and ",
                others) + " workers" + (role == WorkerRole.REGULAR
                ? "; embeddings and the Responses API need a regular worker)" : ")");
    }

    private static List<Worker> ofModel(List<Worker> workers, String model) {
        List<Worker> out = new ArrayList<>(workers.size());
        for (Worker w : workers) {
            if (w.modelId().equals(model)) {
                out.add(w);
            }
        }
        return out;
    }

    @Override
    public synchronized void onWorkerAdded(Worker worker) {
        if (worker.role() == role) {
            policyFor(worker.modelId()).onWorkerAdded(worker);
        }
    }

    @Override
    public synchronized void onWorkerRemoved(Worker worker) {
        if (worker.role() != role) {
            return;
        }
        LoadBalancingPolicy p = byModel.get(worker.modelId());
        if (p == null) {
            return;
        }
        p.onWorkerRemoved(worker);
        if (registry.list(worker.modelId(), role).isEmpty()) {
            byModel.remove(worker.modelId());
            LOG.info("Policy {} for model {} dropped: its last worker left", p.name(), worker.modelId());
        }
    }

    /**
     * Makes the worker's policy forget what it learned about the worker's cache (tree tenancy, sticky keys) by removing
     * and re-adding it: used after the engine's cache was flushed through this gateway. The {@link #onCacheFlushed}
     * listener (replica sync) is told, so that the other replicas forget it too. A worker of another role is not this
     * registry's: nothing happens.
     */
    public void forgetCache(Worker worker) {
        if (worker.role() == role) {
            forgetFlushedCache(worker);
            flushed.accept(worker);
        }
    }

    /** As {@link #forgetCache}, for an engine flushed through another gateway replica: the listener is not told. */
    public synchronized void forgetFlushedCache(Worker worker) {
        LoadBalancingPolicy p = worker.role() == role ? byModel.get(worker.modelId()) : null;
        if (p != null) {
            p.onWorkerRemoved(worker);
            p.onWorkerAdded(worker);
        }
    }

    /** The one listener told of every worker whose cache this gateway flushed ({@link #forgetCache}). */
    public void onCacheFlushed(Consumer<Worker> listener) {
        this.flushed = listener;
    }

    /** Forgets every policy's learned state (trees, counters, sticky keys), e.g. after the engines' caches were flushed. */
    public void resetAll() {
        byModel.values().forEach(LoadBalancingPolicy::reset);
    }
}
