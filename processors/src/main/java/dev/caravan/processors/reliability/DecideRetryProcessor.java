package dev.caravan.processors.reliability;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT_PENDING;
import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.HOLD_BACK_STATUSES;
import static dev.caravan.processors.CaravanExchangeProperties.LEASE;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.TTFB_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.forward.Usage;

/**
 * Route step {@code decideRetry}, in the attempt loop after each attempt (its body, {@code direct:attempt-<ATTEMPT>},
 * runs inside a doTry): decides whether another one follows.
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
    private static final List<ExchangeProperty<?>> ATTEMPT_PROPERTIES = List.of(WORKER, LEASE, DECISION, OUTCOME,
            RESPONSE_STATUS, TTFB_NANOS, Usage.PROPERTY);

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
        String outcome = OUTCOME.get(exchange);
        boolean committed = RESPONSE_COMMITTED.get(exchange, false);
        Integer status = RESPONSE_STATUS.get(exchange);
        Worker worker = WORKER.get(exchange);
        if (state == null || committed || outcome == null || !RETRYABLE_OUTCOMES.contains(outcome)) {
            stop(exchange, caught);
            return;
        }
        String reason = ForwardOutcomes.RETRYABLE_STATUS.equals(outcome) ? String.valueOf(status) : outcome;
        if (!state.moreAttemptsAllowed()) {
            metrics.retriesExhausted(workerType(worker), endpoint(exchange));
            LOG.debug("Request {}: attempt {} of {} failed ({}); no attempt left",
                    REQUEST_ID.get(exchange), state.attempts(), state.maxAttempts(),
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
        for (ExchangeProperty<?> p : ATTEMPT_PROPERTIES) {
            p.remove(exchange);
        }
        ATTEMPT_PENDING.set(exchange, true);
        if (!state.moreAttemptsAllowed()) {
            HOLD_BACK_STATUSES.remove(exchange); // the last attempt relays anything
        }
        metrics.retried(reason, workerType(worker), endpoint(exchange));
        LOG.debug("Request {}: attempt {} failed on {} ({}); attempt {} of {} in {} ms",
                REQUEST_ID.get(exchange), state.attempts() - 1,
                worker == null ? "?" : worker.url(), reason, state.attempts(), state.maxAttempts(), delay);
    }

    private static void stop(Exchange exchange, Exception caught) throws Exception {
        ATTEMPT_PENDING.set(exchange, false);
        if (caught != null) {
            throw caught;
        }
    }

    private static String workerType(Worker worker) {
        return worker == null ? null : worker.role().wireName();
    }

    /** The request's API as SGLang's metrics name it ({@code chat}, {@code completions}, ...): the request kind. */
    private static String endpoint(Exchange exchange) {
        return REQUEST_KIND.get(exchange);
    }
}
