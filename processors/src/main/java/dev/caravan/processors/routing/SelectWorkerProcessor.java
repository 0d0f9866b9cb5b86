package dev.caravan.processors.routing;

import java.util.ArrayList;
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
import dev.caravan.processors.CaravanExchangeProperties;
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
 * <p>Reads {@code MODEL}, {@code ROUTING_TEXT} and the request headers (routing keys such as {@code X-SMG-Routing-Key});
 * writes {@code DECISION}, {@code WORKER}, {@code LEASE}.
 */
public final class SelectWorkerProcessor implements Processor {

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
        String model = exchange.getProperty(CaravanExchangeProperties.MODEL, String.class);
        PolicyRegistry.Pool pool = policies.poolFor(model);
        List<Worker> available = new ArrayList<>(pool.workers().size());
        for (Worker w : pool.workers()) {
            if (w.isAvailable()) {
                available.add(w);
            }
        }
        if (available.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception(pool.workers().isEmpty()
                    ? "No workers are registered" : "No available workers (all circuits open or unhealthy)");
        }
        String text = exchange.getProperty(CaravanExchangeProperties.ROUTING_TEXT, String.class);
        SelectionContext context = new SelectionContext(pool.model(), text, null,
                new HeaderView(exchange.getIn().getHeaders()));
        LoadBalancingPolicy policy = pool.policy();
        Decision decision = policy.select(available, context);
        decisions.accept(decision);
        if (decision.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception("No available workers (" + decision.label() + ")");
        }
        Worker worker = decision.worker();
        WorkerLease lease = worker.acquire();
        exchange.setProperty(CaravanExchangeProperties.DECISION, decision);
        exchange.setProperty(CaravanExchangeProperties.WORKER, worker);
        exchange.setProperty(CaravanExchangeProperties.LEASE, lease);
        exchange.getExchangeExtension().addOnCompletion(new LeaseHook(lease, policy));
        if (LOG.isDebugEnabled()) {
            StringBuilder loads = new StringBuilder();
            for (Worker w : available) {
                loads.append(w.url()).append('=').append(w.load()).append(' ');
            }
            LOG.debug("Request {} model={} -> {} ({}); loads: {}", exchange.getProperty(
                    CaravanExchangeProperties.REQUEST_ID), pool.model(), worker.url(), decision.label(), loads);
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
            Integer status = exchange.getProperty(CaravanExchangeProperties.RESPONSE_STATUS, Integer.class);
            String outcome = exchange.getProperty(CaravanExchangeProperties.OUTCOME, String.class);
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
