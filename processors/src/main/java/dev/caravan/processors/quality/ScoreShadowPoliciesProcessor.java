package dev.caravan.processors.quality;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.PROMPT_TOKENS;

import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Decision;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.routing.SelectWorkerProcessor;

/**
 * Route step {@code scoreShadowPolicies}, on a wire-tapped copy of the exchange after {@code selectWorker} (the route's
 * {@code direct:shadow-policies}), off the request's path: asks each shadow policy what it would have chosen among the
 * same available workers, with the same request, and scores that pick by what the pick held of the request
 * ({@link MeasurePrefixesProcessor#HELD}, measured before the live decision), next to the live pick and the best.
 * No engine is called and no load is taken: a shadow's decision is released at once (kv_aware's in-flight blocks).
 * Failures of a shadow are logged at debug and change nothing.
 */
public final class ScoreShadowPoliciesProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(ScoreShadowPoliciesProcessor.class);

    private final PolicyRegistry policies;
    private final ShadowPolicies shadows;
    private final ShadowMetrics metrics;
    private final double charsPerToken;

    public ScoreShadowPoliciesProcessor(PolicyRegistry policies, ShadowPolicies shadows, MeterRegistry registry,
                                        double charsPerToken) {
        this.policies = policies;
        this.shadows = shadows;
        this.metrics = new ShadowMetrics(registry);
        this.charsPerToken = charsPerToken;
    }

    @Override
    public void process(Exchange exchange) {
        Decision live = DECISION.get(exchange);
        if (live == null || live.isEmpty()) {
            return;
        }
        PolicyRegistry.Pool pool = policies.poolFor(MODEL.get(exchange));
        List<Worker> available = SelectWorkerProcessor.available(pool);
        if (available.isEmpty()) {
            return;
        }
        SelectionContext context = SelectWorkerProcessor.context(exchange, pool.model());
        HeldPrefixes held = MeasurePrefixesProcessor.HELD.get(exchange);
        double scale = held == null ? 0 : TokenScale.tokensPerUnit(held, -1, PROMPT_TOKENS.get(exchange),
                charsPerToken);
        String liveUrl = live.worker().url();
        for (ShadowPolicies.Shadow shadow : shadows.shadows()) {
            Decision d;
            try {
                d = shadow.registry().policyFor(pool.model()).select(available, context);
                if (d.onFirstToken() != null) {
                    d.onFirstToken().run(); // nothing is sent: no prefill is pending (cache_aware's backlog)
                }
                if (d.onRelease() != null) {
                    d.onRelease().run();
                }
            } catch (RuntimeException e) {
                LOG.debug("Shadow policy {} failed: {}", shadow.name(), e.toString());
                continue;
            }
            if (d.isEmpty()) {
                continue;
            }
            String url = d.worker().url();
            metrics.decided(shadow.name(), url.equals(liveUrl));
            if (held != null) {
                metrics.scored(shadow.name(), Math.round(held.held(url) * scale),
                        Math.round(held.held(liveUrl) * scale), Math.round(held.best() * scale));
            }
        }
    }
}
