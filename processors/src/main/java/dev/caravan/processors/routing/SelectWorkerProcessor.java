package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.LEASE;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.PREFERRED_WORKER;
import static dev.caravan.processors.CaravanExchangeProperties.PROMPT_TOKENS;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncCallbackToCompletableFutureAdapter;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.RequestCompletion;
import dev.caravan.policies.Decision;
import dev.caravan.policies.FleetAgreement;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code selectWorker}: asks the request model's policy for a worker and takes a load lease on it.
 *
 * <p>Candidates are the model's pool ({@link PolicyRegistry#poolFor}) filtered to available workers (healthy, breaker
 * closed); none → 503 {@code no_available_workers}, as is a policy that declines. The lease (in-flight +1) is taken here
 * for every policy and released exactly once: by the forward step when the response ends, fails or the client leaves,
 * and in any case when the exchange completes (an on-completion hook, so a failure between this step and the forward
 * cannot leak load). The hook also reports the outcome to the policy ({@code onRequestComplete}).
 *
 * <p>A retry ({@code EXCLUDED_WORKERS}, set by the retry steps) leaves out the workers that already failed this request,
 * unless that would leave no candidate.
 *
 * <p>A request with a {@code PREFERRED_WORKER} (a Responses API request continuing a response stored by that worker)
 * goes to that worker while it is a candidate, without asking the policy (branch {@value #PREFERRED_BRANCH}); when it
 * is not (gone, unhealthy, breaker open, excluded by a retry) the policy chooses as usual.
 *
 * <p>Asynchronous only when the policy must first agree with the gateway's other replicas ({@link FleetAgreement}:
 * manual's first request for a routing key with replica sync): the decision is then made when the fleet answered, on
 * the thread that completed the agreement, holding no thread meanwhile. Every other request decides synchronously.
 *
 * <p>The lease runs the decision's release action (kv_aware's active blocks); a decision naming an engine rank
 * ({@code kv_aware} on a data-parallel engine) is pinned to it by the {@code pinDataParallelRank} step.
 *
 * <p>Reads {@code MODEL}, {@code ROUTING_TEXT}, {@code PROMPT_TOKENS}, {@code REQUEST_JSON} ({@code cache_salt},
 * {@code lora_path}), {@code EXCLUDED_WORKERS}, {@code PREFERRED_WORKER} and the request headers (routing keys such as
 * {@code X-SMG-Routing-Key}); writes {@code DECISION}, {@code WORKER}, {@code LEASE}.
 */
public final class SelectWorkerProcessor implements AsyncProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(SelectWorkerProcessor.class);

    /** The branch of a decision that followed {@code PREFERRED_WORKER} instead of asking the policy. */
    public static final String PREFERRED_BRANCH = "previous_response";

    private final PolicyRegistry policies;
    private final Consumer<Decision> decisions;

    /**
     * @param policies  the per-model policies
     * @param decisions told about every decision, including declined ones (metrics)
     */
    public SelectWorkerProcessor(PolicyRegistry policies, Consumer<Decision> decisions) {
        this.policies = policies;
        this.decisions = decisions;
    }

    /**
     * The synchronous form (tests, the bench's replay; Camel's routes call the asynchronous one): throws what the
     * route would see as the exchange's exception, and waits for a fleet agreement.
     */
    @Override
    public void process(Exchange exchange) {
        Candidates c = candidates(exchange);
        CompletionStage<Void> agreed = c.agreement();
        if (agreed != null) {
            agreed.exceptionally(e -> null).toCompletableFuture().join();
        }
        decide(exchange, c);
    }

    @Override
    public CompletableFuture<Exchange> processAsync(Exchange exchange) {
        AsyncCallbackToCompletableFutureAdapter<Exchange> callback = new AsyncCallbackToCompletableFutureAdapter<>(
                exchange);
        process(exchange, callback);
        return callback.getFuture();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Candidates c;
        try {
            c = candidates(exchange);
        } catch (RuntimeException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
        CompletionStage<Void> agreed = c.agreement();
        if (agreed == null) {
            decideSafely(exchange, c);
            callback.done(true);
            return true;
        }
        agreed.whenComplete((ignored, failure) -> {
            decideSafely(exchange, c); // a failed agreement has been counted by the policy: it decides alone
            callback.done(false);
        });
        return false;
    }

    /** The pool's available workers, the policy and its selection context. */
    private record Candidates(PolicyRegistry.Pool pool, List<Worker> available, LoadBalancingPolicy policy,
            SelectionContext context, Decision preferred) {

        /** The fleet agreement to wait for first, or null (none needed, or the preferred worker decides). */
        CompletionStage<Void> agreement() {
            return preferred == null && policy instanceof FleetAgreement fa ? fa.agreeBefore(available, context) : null;
        }
    }

    private Candidates candidates(Exchange exchange) {
        String model = MODEL.get(exchange);
        PolicyRegistry.Pool pool = policies.poolFor(model);
        List<Worker> available = available(pool);
        Collection<?> excluded = EXCLUDED_WORKERS.get(exchange);
        if (excluded != null && !excluded.isEmpty() && !excluded.containsAll(available)) {
            available.removeIf(excluded::contains); // a retry avoids the workers that failed it, while others remain
        }
        if (available.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception(pool.workers().isEmpty()
                    ? policies.emptyPoolReason() : "No available workers (all circuits open or unhealthy)");
        }
        SelectionContext context = context(exchange, pool.model());
        LoadBalancingPolicy policy = pool.policy();
        return new Candidates(pool, available, policy, context,
                preferred(PREFERRED_WORKER.get(exchange), available, policy));
    }

    /** The pool's available workers (healthy, breaker closed), in pool order. */
    public static List<Worker> available(PolicyRegistry.Pool pool) {
        List<Worker> available = new ArrayList<>(pool.workers().size());
        for (Worker w : pool.workers()) {
            if (w.isAvailable()) {
                available.add(w);
            }
        }
        return available;
    }

    /** What the policy sees of the request: its routing text, prompt tokens, headers and cache scope. */
    public static SelectionContext context(Exchange exchange, String model) {
        return new SelectionContext(model, ROUTING_TEXT.get(exchange), null,
                new HeaderView(exchange.getIn().getHeaders()), PROMPT_TOKENS.get(exchange), CacheScopes.of(exchange));
    }

    private void decideSafely(Exchange exchange, Candidates c) {
        try {
            decide(exchange, c);
        } catch (RuntimeException e) {
            exchange.setException(e);
        }
    }

    private void decide(Exchange exchange, Candidates c) {
        PolicyRegistry.Pool pool = c.pool();
        List<Worker> available = c.available();
        LoadBalancingPolicy policy = c.policy();
        Decision decision = c.preferred() != null ? c.preferred() : policy.select(available, c.context());
        decisions.accept(decision);
        if (decision.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception("No available workers (" + decision.label() + ")");
        }
        Worker worker = decision.worker();
        WorkerLease lease = decision.acquire();
        DECISION.set(exchange, decision);
        WORKER.set(exchange, worker);
        LEASE.set(exchange, lease);
        RequestCompletion.onDone(exchange, new LeaseHook(lease, policy)::onDone);
        if (LOG.isDebugEnabled()) {
            StringBuilder loads = new StringBuilder();
            for (Worker w : available) {
                loads.append(w.url()).append('=').append(w.load()).append(' ');
            }
            LOG.debug("Request {} model={} -> {} ({}); loads: {}", REQUEST_ID.get(exchange), pool.model(), worker.url(),
                    decision.label(), loads);
        }
    }

    /**
     * The preferred worker ({@code PREFERRED_WORKER}: the engine that stored the response a Responses request
     * continues) when it is among the candidates, as a decision of branch {@value #PREFERRED_BRANCH}; else null.
     */
    private static Decision preferred(String url, List<Worker> available, LoadBalancingPolicy policy) {
        if (url == null) {
            return null;
        }
        for (Worker w : available) {
            if (w.url().equals(url)) {
                return Decision.of(w, policy.name(), PREFERRED_BRANCH);
            }
        }
        return null;
    }

    /** Releases the lease (idempotent) and tells the policy how the request went. */
    private static final class LeaseHook extends SynchronizationAdapter {
        private final WorkerLease lease;
        private final LoadBalancingPolicy policy;

        LeaseHook(WorkerLease lease, LoadBalancingPolicy policy) {
            this.lease = lease;
            this.policy = policy;
        }

        @Override
        public void onDone(Exchange exchange) {
            lease.release();
            Integer status = RESPONSE_STATUS.get(exchange);
            String outcome = OUTCOME.get(exchange);
            boolean success = exchange.getException() == null && !"upstream_failed".equals(outcome)
                    && !"timeout".equals(outcome) && (status == null || status < 500 || status == 499);
            try {
                policy.onRequestComplete(lease.worker(), success);
            } catch (RuntimeException e) {
                LOG.warn("Policy {} failed in onRequestComplete: {}", policy.name(), e.toString());
            }
        }
    }
}
