package dev.caravan.processors.reliability;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT_PENDING;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.processors.time.DelayScheduler;

/**
 * Route step {@code awaitBackoff}, after {@code decideRetry}: waits out the back-off before the next attempt without
 * holding a thread — an asynchronous step that returns at once and continues the exchange from a
 * {@link DelayScheduler} timer (on the request's event loop). Nothing to wait for (no retry, or a zero delay): it
 * completes synchronously.
 */
public final class AwaitBackoffProcessor extends AsyncProcessorSupport {

    private final DelayScheduler scheduler;

    public AwaitBackoffProcessor(DelayScheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        RetryState state = RetryState.of(exchange);
        boolean pending = ATTEMPT_PENDING.get(exchange, false);
        long delay = state == null ? 0 : state.nextDelayMillis();
        if (!pending || delay <= 0) {
            callback.done(true);
            return true;
        }
        state.setNextDelayMillis(0);
        scheduler.schedule(delay, () -> callback.done(false));
        return false;
    }
}
