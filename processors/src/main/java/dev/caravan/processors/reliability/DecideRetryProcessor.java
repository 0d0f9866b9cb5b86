package dev.caravan.processors.reliability;

import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.forward.ForwardOutcomes;

/**
 * Route step {@code decideRetry}, last in the attempt loop's body: after an attempt ({@code selectWorker} +
 * {@code forwardStream} inside a doTry) decides whether another one follows.
 *
 * <p>Retried, while attempts remain: a connection failure or a broken connection before the response head
 * ({@code upstream_failed}), a worker that sent nothing within the idle limit ({@code idle_timeout}) or
 * no response head to a non-streamed request within the attempt limit ({@code attempt_timeout}), and a retryable
 * status the forward step held back (408, 429, 500, 502, 503, 504: {@code retryable_status}). Never retried: anything
 * after the response head reached the client ({@code RESPONSE_COMMITTED}), an end-to-end timeout, a client that left,
 * the gateway's own errors (no available worker, bad input). When no attempt follows, the caught failure is re-thrown
 * for the route's error handler (502/504/503 JSON); when one does, the failed worker is excluded, the attempt's
 * properties are cleared, the back-off is set for {@code awaitBackoff}, and the lease of the failed attempt has already
 * been released by the forward step.
 */
public final class DecideRetryProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(DecideRetryProcessor.class);

    private static final Set<String> RETRYABLE_OUTCOMES = Set.of(ForwardOutcomes.UPSTREAM_FAILED,
            ForwardOutcomes.IDLE_TIMEOUT, ForwardOutcomes.ATTEMPT_TIMEOUT, ForwardOutcomes.RETRYABLE_STATUS);
    /** What one attempt left on the exchange; cleared before the next. */
    private static final String[] ATTEMPT_PROPERTIES = {CaravanExchangeProperties.WORKER,
        CaravanExchangeProperties.LEASE, CaravanExchangeProperties.DECISION, CaravanExchangeProperties.OUTCOME,
        CaravanExchangeProperties.RESPONSE_STATUS, CaravanExchangeProperties.TTFB_NANOS,
        CaravanExchangeProperties.USAGE};

    private final RetryConfig config;
    private final Supplier<RandomGenerator> random;
    private final ReliabilityMetrics metrics;

    /**
     * @param random source of back-off jitter (per call, e.g. {@code ThreadLocalRandom::current})
     */
    public DecideRetryProcessor(RetryConfig config, Supplier<RandomGenerator> random, ReliabilityMetrics metrics) {
        this.config = config;
        this.random = random;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        Exception caught = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        exchange.removeProperty(Exchange.EXCEPTION_CAUGHT);
        RetryState state = RetryState.of(exchange);
        String outcome = exchange.getProperty(CaravanExchangeProperties.OUTCOME, String.class);
        boolean committed = exchange.getProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, false, Boolean.class);
        Integer status = exchange.getProperty(CaravanExchangeProperties.RESPONSE_STATUS, Integer.class);
        Worker worker = exchange.getProperty(CaravanExchangeProperties.WORKER, Worker.class);
        if (state == null || committed || outcome == null || !RETRYABLE_OUTCOMES.contains(outcome)) {
            stop(exchange, caught);
            return;
        }
        String reason = ForwardOutcomes.RETRYABLE_STATUS.equals(outcome) ? String.valueOf(status) : outcome;
        if (!state.moreAttemptsAllowed()) {
            metrics.retriesExhausted();
            LOG.debug("Request {}: attempt {} of {} failed ({}); no attempt left",
                    exchange.getProperty(CaravanExchangeProperties.REQUEST_ID), state.attempts(), state.maxAttempts(),
                    reason);
            if (caught == null) {
                // only reachable if a route set HOLD_BACK_STATUSES itself on the last attempt
                caught = GatewayError.UPSTREAM_FAILED.exception("worker " + (worker == null ? "?" : worker.url())
                        + " answered " + status);
            }
            stop(exchange, caught);
            return;
        }
        if (worker != null) {
            state.exclude(worker);
        }
        long delay = config.backoffMillis(state.attempts() - 1, random.get());
        state.setNextDelayMillis(delay);
        state.startAttempt();
        for (String p : ATTEMPT_PROPERTIES) {
            exchange.removeProperty(p);
        }
        exchange.setProperty(CaravanExchangeProperties.ATTEMPT_PENDING, true);
        if (!state.moreAttemptsAllowed()) {
            exchange.removeProperty(CaravanExchangeProperties.HOLD_BACK_STATUSES); // the last attempt relays anything
        }
        metrics.retried(reason);
        LOG.debug("Request {}: attempt {} failed on {} ({}); attempt {} of {} in {} ms",
                exchange.getProperty(CaravanExchangeProperties.REQUEST_ID), state.attempts() - 1,
                worker == null ? "?" : worker.url(), reason, state.attempts(), state.maxAttempts(), delay);
    }

    private static void stop(Exchange exchange, Exception caught) throws Exception {
        exchange.setProperty(CaravanExchangeProperties.ATTEMPT_PENDING, false);
        if (caught != null) {
            throw caught;
        }
    }
}
