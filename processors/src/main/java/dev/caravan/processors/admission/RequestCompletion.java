package dev.caravan.processors.admission;

import java.util.function.Consumer;

import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.ExchangeProperty;

/**
 * The request's on-completion hook for the steps that hold something until the exchange completes: the tenant's
 * settlement ({@code limitTenantRate}), the admission ticket ({@code admitRequest}) and each attempt's worker lease
 * ({@code selectWorker}) are released from it, last added first, as Camel runs separate hooks. One hook instead of
 * three because Camel's unit of work copies and sorts the exchange's hooks at the start and end of each of the four
 * routes a request passes, and sorts none when there is one (design/request-path.md, "Per-request cost"). As Camel
 * does, a task that throws is logged and the next one still runs. Not thread-safe, as Camel's own list of hooks is not:
 * the steps add their tasks on the exchange's thread.
 */
public final class RequestCompletion extends SynchronizationAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(RequestCompletion.class);
    private static final ExchangeProperty<RequestCompletion> PROPERTY =
            ExchangeProperty.of("caravanRequestCompletion", RequestCompletion.class);

    /** Three tasks for a request answered by its first attempt; each retry adds a lease. */
    private Consumer<Exchange>[] tasks = newTasks(4);
    private int size;
    /** Whose hook it is: a copy of the exchange (a wire tap's) carries the property but gets a hook of its own. */
    private final Exchange owner;

    private RequestCompletion(Exchange owner) {
        this.owner = owner;
    }

    /** Runs {@code task} when the exchange completes, whether it succeeded or failed. */
    public static void onDone(Exchange exchange, Consumer<Exchange> task) {
        RequestCompletion completion = PROPERTY.get(exchange);
        if (completion == null || completion.owner != exchange) {
            completion = new RequestCompletion(exchange);
            PROPERTY.set(exchange, completion);
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

    @Override
    public void onDone(Exchange exchange) {
        for (int i = size - 1; i >= 0; i--) {
            try {
                tasks[i].accept(exchange);
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
