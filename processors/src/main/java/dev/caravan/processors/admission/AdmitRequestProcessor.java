package dev.caravan.processors.admission;

import static dev.caravan.processors.CaravanExchangeProperties.CLIENT_REQUEST;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.RequestCompletion;

/**
 * Route step {@code admitRequest} (inference routes, before the first attempt): asks the {@link AdmissionController}
 * for a ticket, without holding a thread while the request waits in the queue. The request's tenant and class
 * ({@code FlowKey.PROPERTY}, from {@code identifyTenant}; {@code FlowKey.DEFAULT} without one) set its place in the queue
 * and its queue timeout, and its expected prompt tokens ({@code FlowKey.COST}) are charged to its tenant's fair share.
 *
 * <p>Admitted at once: the route continues synchronously. Queued: the step returns {@code false} and the exchange
 * continues on its own event loop when a slot is handed over (or fails when the wait ends otherwise); a client that
 * hangs up while queued leaves the queue. Rejected: a {@code GatewayException} for the route's error handler — 429
 * {@code queue_full} / {@code rate_limited}, 408 {@code queue_timeout}, 503 {@code shutting_down}.
 *
 * <p>The ticket ({@code AdmissionTicket.PROPERTY}) is released exactly once, when the exchange completes: after the
 * response ended, failed, or the client left — the on-completion hook ({@link RequestCompletion}) runs when the HTTP
 * consumer finishes the unit of work.
 */
public final class AdmitRequestProcessor extends AsyncProcessorSupport {

    private static final Logger LOG = LoggerFactory.getLogger(AdmitRequestProcessor.class);

    private final AdmissionController controller;

    public AdmitRequestProcessor(AdmissionController controller) {
        this.controller = controller;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        FlowKey key = FlowKey.PROPERTY.get(exchange);
        AdmissionController.Decision decision = controller.admit(new Resume(exchange, callback, Vertx.currentContext()),
                key == null ? FlowKey.DEFAULT : key, FlowKey.COST.get(exchange, 0L));
        if (decision instanceof AdmissionController.Admitted a) {
            hold(exchange, a.ticket());
            callback.done(true);
            return true;
        }
        if (decision instanceof AdmissionController.Rejected r) {
            reject(exchange, r.reason());
            callback.done(true);
            return true;
        }
        Object handle = ((AdmissionController.Queued) decision).handle();
        HttpServerRequest request = CLIENT_REQUEST.get(exchange);
        if (request != null) {
            // replaced by the forward step's own handler once the request is admitted and forwarded
            request.response().closeHandler(v -> controller.cancel(handle));
        }
        LOG.debug("Request {} queued for a slot ({} waiting)",
                REQUEST_ID.get(exchange), controller.queued());
        return false;
    }

    private static void hold(Exchange exchange, AdmissionTicket ticket) {
        AdmissionTicket.PROPERTY.set(exchange, ticket);
        RequestCompletion.onDone(exchange, e -> ticket.release());
    }

    private static void reject(Exchange exchange, Rejection reason) {
        if (reason.error() == null) {
            // the client is gone: nothing to answer, nothing more to do
            RESPONSE_COMMITTED.set(exchange, true);
            RESPONSE_STATUS.set(exchange, 499);
            exchange.setRouteStop(true);
            return;
        }
        exchange.setException(reason.error().exception(switch (reason) {
            case QUEUE_FULL -> "too many requests: every slot is busy and the queue is full";
            case QUEUE_TIMEOUT -> "the request waited too long for a free slot";
            case RATE_LIMITED -> "rate limit exceeded";
            default -> "the gateway is shutting down";
        }));
    }

    /** Continues a queued exchange on the event loop it arrived on. */
    private static final class Resume implements AdmissionController.Waiter {
        private final Exchange exchange;
        private final AsyncCallback callback;
        private final Context context;

        Resume(Exchange exchange, AsyncCallback callback, Context context) {
            this.exchange = exchange;
            this.callback = callback;
            this.context = context;
        }

        @Override
        public void admitted(AdmissionTicket ticket) {
            continueOnContext(() -> hold(exchange, ticket));
        }

        @Override
        public void rejected(Rejection reason) {
            continueOnContext(() -> reject(exchange, reason));
        }

        private void continueOnContext(Runnable step) {
            if (context == null) {
                step.run();
                callback.done(false);
            } else {
                context.runOnContext(v -> {
                    step.run();
                    callback.done(false);
                });
            }
        }
    }
}
