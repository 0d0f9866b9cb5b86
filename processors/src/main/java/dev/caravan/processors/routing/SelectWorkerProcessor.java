package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.LEASE;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.PINNED_RANK;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Decision;
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
 * <p>A decision naming an engine rank ({@code kv_aware} on a data-parallel engine) is forwarded with the
 * {@code X-data-parallel-rank} header; the lease runs the decision's release action (kv_aware's active blocks).
 *
 * <p>Reads {@code MODEL}, {@code ROUTING_TEXT}, {@code REQUEST_JSON} ({@code cache_salt}, {@code lora_path}),
 * {@code EXCLUDED_WORKERS} and the request headers (routing keys such as {@code X-SMG-Routing-Key}); writes
 * {@code DECISION}, {@code WORKER}, {@code LEASE}.
 */
public final class SelectWorkerProcessor implements Processor {

    /** The header vLLM (and the simulator) read to run a request on one data-parallel rank. */
    public static final String DATA_PARALLEL_RANK_HEADER = "X-data-parallel-rank";

    private static final Logger LOG = LoggerFactory.getLogger(SelectWorkerProcessor.class);

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

    @Override
    public void process(Exchange exchange) {
        String model = MODEL.get(exchange);
        PolicyRegistry.Pool pool = policies.poolFor(model);
        List<Worker> available = new ArrayList<>(pool.workers().size());
        for (Worker w : pool.workers()) {
            if (w.isAvailable()) {
                available.add(w);
            }
        }
        Collection<?> excluded = EXCLUDED_WORKERS.get(exchange);
        if (excluded != null && !excluded.isEmpty() && !excluded.containsAll(available)) {
            available.removeIf(excluded::contains); // a retry avoids the workers that failed it, while others remain
        }
        if (available.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception(pool.workers().isEmpty()
                    ? "No workers are registered" : "No available workers (all circuits open or unhealthy)");
        }
        String text = ROUTING_TEXT.get(exchange);
        SelectionContext context = new SelectionContext(pool.model(), text, null,
                new HeaderView(exchange.getIn().getHeaders()), CacheScopes.of(exchange));
        LoadBalancingPolicy policy = pool.policy();
        Decision decision = policy.select(available, context);
        decisions.accept(decision);
        if (decision.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception("No available workers (" + decision.label() + ")");
        }
        Worker worker = decision.worker();
        WorkerLease lease = decision.acquire();
        pinRank(exchange, decision.dataParallelRank());
        DECISION.set(exchange, decision);
        WORKER.set(exchange, worker);
        LEASE.set(exchange, lease);
        exchange.getExchangeExtension().addOnCompletion(new LeaseHook(lease, policy));
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
     * Sends the engine rank the policy chose as vLLM's {@code X-data-parallel-rank} header; a retry whose decision
     * names no rank takes back the header a previous attempt set (never one the client sent).
     */
    private static void pinRank(Exchange exchange, Integer rank) {
        if (rank != null) {
            exchange.getIn().setHeader(DATA_PARALLEL_RANK_HEADER, rank.toString());
            PINNED_RANK.set(exchange, rank);
        } else if (PINNED_RANK.get(exchange) != null) {
            exchange.getIn().removeHeader(DATA_PARALLEL_RANK_HEADER);
            PINNED_RANK.set(exchange, null);
        }
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
