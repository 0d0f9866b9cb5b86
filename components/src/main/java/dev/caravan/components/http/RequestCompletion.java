package dev.caravan.components.http;

import java.util.function.Consumer;

import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * The request's on-completion hook: what the steps hold until the request ends is released from it, and what reports
 * the request's end runs from it — the tenant's settlement ({@code limitTenantRate}), the admission ticket
 * ({@code admitRequest}), each attempt's worker lease ({@code selectWorker}), the request's trace span
 * ({@code traceRequest}), decision quality ({@code measurePrefixes}) and the HTTP consumer's request metrics. Tasks run
 * last added first, as Camel runs separate hooks, and once: when the relay that answers the client has ended the
 * response ({@link #completeNow}, which it calls before it hands the exchange back to Camel), otherwise when the
 * exchange completes. So a request that was answered releases what it held and is counted when its response ends,
 * even though Camel's route end follows a moment later (design/request-path.md, "Per-request cost").
 *
 * <p>One hook instead of one per step because Camel's unit of work copies and sorts the exchange's hooks at the start
 * and end of each of the routes a request passes, and sorts none when there is one. As Camel does, a task that throws
 * is logged and the next one still runs. Not thread-safe, as Camel's own list of hooks is not: the steps add their
 * tasks on the exchange's thread.
 */
public final class RequestCompletion extends SynchronizationAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(RequestCompletion.class);
    /** The exchange property holding the request's hook. */
    private static final String PROPERTY = "caravanRequestCompletion";

    /** Up to six tasks for a request answered by its first attempt; each retry adds a lease. */
    private Consumer<Exchange>[] tasks = newTasks(8);
    private int size;
    /** Whose hook it is: a copy of the exchange (a wire tap's) carries the property but gets a hook of its own. */
    private final Exchange owner;

    private RequestCompletion(Exchange owner) {
        this.owner = owner;
    }

    /**
     * Runs {@code task} when the request completes ({@link #completeNow} or the exchange's end), whether it succeeded
     * or failed.
     */
    public static void onDone(Exchange exchange, Consumer<Exchange> task) {
        RequestCompletion completion = of(exchange);
        if (completion == null || completion.owner != exchange) {
            completion = new RequestCompletion(exchange);
            exchange.getProperties().put(PROPERTY, completion);
            exchange.getExchangeExtension().addOnCompletion(completion);
        }
        completion.add(task);
    }

    private void add(Consumer<Exchange> task) {
        if (size == tasks.length) {
            Consumer<Exchange>[] grown = newTasks(size * 2);
            System.arraycopy(tasks, 0, grown, 0, size);
            tasks = grown;
        }
        tasks[size++] = task;
    }

    /**
     * Runs the exchange's tasks now instead of when it completes (the response has ended: nothing after it can change
     * what they release or report). Tasks added later still run when the exchange completes.
     */
    public static void completeNow(Exchange exchange) {
        RequestCompletion completion = of(exchange);
        if (completion != null && completion.owner == exchange) {
            completion.runTasks(exchange);
        }
    }

    private static RequestCompletion of(Exchange exchange) {
        return exchange.getProperties().get(PROPERTY) instanceof RequestCompletion c ? c : null;
    }

    @Override
    public void onDone(Exchange exchange) {
        runTasks(exchange);
    }

    private void runTasks(Exchange exchange) {
        int n = size;
        size = 0;
        for (int i = n - 1; i >= 0; i--) {
            Consumer<Exchange> task = tasks[i];
            tasks[i] = null;
            try {
                task.accept(exchange);
            } catch (Exception e) {
                LOG.warn("Exception occurred during onCompletion. This exception will be ignored.", e);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Consumer<Exchange>[] newTasks(int n) {
        return (Consumer<Exchange>[]) new Consumer<?>[n];
    }
}
