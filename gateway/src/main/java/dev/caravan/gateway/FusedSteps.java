package dev.caravan.gateway;

import java.util.List;

import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.processor.PipelineHelper;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.service.ServiceHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run of route steps as one Camel step ({@link StepFusion}): each step runs when the one before it is done, and the
 * run ends where Camel's pipeline would end it ({@link PipelineHelper#continueProcessing}: a failure, an error the
 * error handler handled, a rollback, a route stop). A step that throws leaves its exception on the exchange, as
 * Camel's wrapper of a synchronous processor does, for the error handler around the run. An asynchronous step
 * ({@code admitRequest} waiting in the queue, {@code forwardStream}) resumes the run from its callback, on whatever
 * thread completes it. The run keeps no state of its own per exchange beyond that callback.
 */
final class FusedSteps extends AsyncProcessorSupport {

    private static final Logger LOG = LoggerFactory.getLogger(FusedSteps.class);

    private final List<String> names;
    private final Processor[] steps;

    FusedSteps(List<String> names, List<Processor> steps) {
        if (names.size() != steps.size() || steps.size() < 2) {
            throw new IllegalArgumentException("a run is two or more named steps, but was " + names);
        }
        this.names = List.copyOf(names);
        this.steps = steps.toArray(Processor[]::new);
    }

    /** The steps' bean names, in the order they run. */
    List<String> names() {
        return names;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        return run(0, exchange, callback, false);
    }

    /**
     * Runs the steps from {@code from} on. {@code resumed}: called from an asynchronous step's callback, after
     * {@link #process} returned false, so the run's end is reported as asynchronous.
     */
    private boolean run(int from, Exchange exchange, AsyncCallback callback, boolean resumed) {
        for (int i = from; i < steps.length; i++) {
            if (i > 0 && !PipelineHelper.continueProcessing(exchange, "so breaking out of the fused steps", LOG)) {
                break;
            }
            ExchangeHelper.prepareOutToIn(exchange);
            if (steps[i] instanceof AsyncProcessor step) {
                int next = i + 1;
                boolean sync = step.process(exchange, doneSync -> {
                    if (!doneSync) {
                        run(next, exchange, callback, true);
                    }
                });
                if (!sync) {
                    return false;
                }
            } else {
                try {
                    steps[i].process(exchange);
                } catch (Throwable e) {
                    exchange.setException(e);
                }
            }
        }
        callback.done(!resumed);
        return !resumed;
    }

    @Override
    protected void doStart() throws Exception {
        ServiceHelper.startService((Object[]) steps);
    }

    @Override
    protected void doStop() throws Exception {
        ServiceHelper.stopService((Object[]) steps);
    }

    @Override
    public String toString() {
        return "steps" + names;
    }
}
