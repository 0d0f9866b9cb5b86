package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.PROMPT_TOKENS;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.CacheScope;
import dev.caravan.policies.Decision;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.text.PromptTokens;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.routing.CacheScopes;
import dev.caravan.processors.routing.HeaderView;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * P/D route step {@code selectPdPair}: chooses a prefill and a decode worker, <em>independently</em>, each with its own
 * pool's policy (its own instance and cache tree per model: a prefill lookup never evicts a decode tenant), from the
 * pool's available workers (healthy, breaker closed) of the request's model, with the same routing text and headers.
 * No available worker in either pool → 503 {@code server_selection_failed} (SGLang's code). Takes a load lease on both
 * and registers an on-completion hook that releases them whatever happens (release is idempotent; the legs and the
 * relay release them earlier, as soon as their part is over). A retry calls this step again: a new pair, new leases;
 * the workers that failed earlier attempts ({@code EXCLUDED_WORKERS}) are left out of each pool while others remain.
 *
 * <p>Reads {@code MODEL}, {@code ROUTING_TEXT}, {@code EXCLUDED_WORKERS}, the request headers. Writes
 * {@code PdPair.PROPERTY}.
 */
public final class SelectPairProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(SelectPairProcessor.class);

    private final PolicyRegistry prefillPool;
    private final PolicyRegistry decodePool;
    private final Consumer<Decision> decisions;
    private final PdMetrics metrics;

    /**
     * @param prefillPool the prefill workers' policies
     * @param decodePool  the decode workers' policies
     * @param decisions   told about every decision (the gateway's decision counter)
     * @param metrics     P/D meters
     */
    public SelectPairProcessor(PolicyRegistry prefillPool, PolicyRegistry decodePool, Consumer<Decision> decisions,
                               PdMetrics metrics) {
        this.prefillPool = prefillPool;
        this.decodePool = decodePool;
        this.decisions = decisions;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        String model = MODEL.get(exchange);
        String text = ROUTING_TEXT.get(exchange);
        HeaderView headers = new HeaderView(exchange.getIn().getHeaders());
        Collection<?> excluded = EXCLUDED_WORKERS.get(exchange);
        PromptTokens prompt = PROMPT_TOKENS.get(exchange);
        CacheScope scope = CacheScopes.of(exchange);
        PdPair.Side prefill = select(Leg.PREFILL, prefillPool, model, text, headers, excluded, prompt, scope);
        PdPair.Side decode;
        try {
            decode = select(Leg.DECODE, decodePool, model, text, headers, excluded, prompt, scope);
        } catch (RuntimeException e) {
            prefill.lease().release();
            throw e;
        }
        PdPair pair = new PdPair(prefill, decode);
        PdPair.PROPERTY.set(exchange, pair);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                pair.releaseLeases();
            }
        });
        LOG.debug("Request {} model={} -> prefill {} ({}), decode {} ({})",
                REQUEST_ID.get(exchange), model, prefill.worker().url(),
                prefill.decision().label(), decode.worker().url(), decode.decision().label());
    }

    private PdPair.Side select(Leg leg, PolicyRegistry pools, String model, String text, HeaderView headers,
                               Collection<?> excluded, PromptTokens prompt, CacheScope scope) {
        PolicyRegistry.Pool pool = pools.poolFor(model);
        List<Worker> available = new ArrayList<>(pool.workers().size());
        for (Worker w : pool.workers()) {
            if (w.isAvailable()) {
                available.add(w);
            }
        }
        if (excluded != null && !excluded.isEmpty() && !excluded.containsAll(available)) {
            available.removeIf(excluded::contains); // a retry avoids the workers that failed it, while others remain
        }
        if (available.isEmpty()) {
            throw GatewayError.SERVER_SELECTION_FAILED.exception(pool.workers().isEmpty()
                    ? "No " + leg.wireName() + " workers are registered"
                    : "No available " + leg.wireName() + " workers (all circuits open or unhealthy)");
        }
        Decision decision = pool.policy().select(available, new SelectionContext(pool.model(), text, null, headers,
                prompt, scope));
        decisions.accept(decision);
        if (decision.isEmpty()) {
            throw GatewayError.SERVER_SELECTION_FAILED.exception("No available " + leg.wireName() + " workers ("
                    + decision.label() + ")");
        }
        metrics.selected(leg, decision.worker());
        return new PdPair.Side(decision.worker(), decision, pool.policy(), decision.acquire());
    }
}
