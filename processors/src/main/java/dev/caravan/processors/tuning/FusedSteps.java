package dev.caravan.processors.tuning;

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

import dev.caravan.processors.ExchangeProperty;

/**
 * A run of route steps as one Camel step ({@link StepFusion}): each step runs when the one before it is done, and the
 * run ends where Camel's pipeline would end it ({@link PipelineHelper#continueProcessing}: a failure, an error the
 * error handler handled, a rollback, a route stop). A step that throws leaves its exception on the exchange, as
 * Camel's wrapper of a synchronous processor does, for the error handler around the run. If that error handler
 * redelivers the exchange (a {@code redeliveryPolicy}), the run starts again at the step that failed, as Camel would
 * redeliver to that step's own node: a failed step is noted on the exchange ({@code caravanFusedStepsResume}), the
 * only state a run keeps. An asynchronous step ({@code admitRequest} waiting in the queue, {@code forwardStream})
 * resumes the run from its callback, on whatever thread completes it.
 */
final class FusedSteps extends AsyncProcessorSupport {

    private static final Logger LOG = LoggerFactory.getLogger(FusedSteps.class);

    /** Which run's step failed last: where a redelivery of the exchange to that run starts. */
    private record Resume(FusedSteps run, int step) {
    }

    private static final ExchangeProperty<Resume> RESUME = ExchangeProperty.of("caravanFusedStepsResume", Resume.class);

    private final List<String> names;
    private final Processor[] steps;
    /** Each step as an {@link AsyncProcessor}, or null where it is a plain processor: checked once, not per request. */
    private final AsyncProcessor[] async;

    FusedSteps(List<String> names, List<Processor> steps) {
        if (names.size() != steps.size() || steps.size() < 2) {
            throw new IllegalArgumentException("a run is two or more named steps, but was " + names);
        }
        this.names = List.copyOf(names);
        this.steps = steps.toArray(Processor[]::new);
        this.async = new AsyncProcessor[this.steps.length];
        for (int i = 0; i < this.steps.length; i++) {
            async[i] = this.steps[i] instanceof AsyncProcessor a ? a : null;
        }
    }

    /** The steps' bean names, in the order they run. */
    List<String> names() {
        return names;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        int from = 0;
        Resume resume = RESUME.get(exchange);
        if (resume != null) {
            RESUME.remove(exchange);
            if (resume.run() == this && Boolean.TRUE.equals(exchange.getIn().getHeader(Exchange.REDELIVERED))) {
                from = resume.step(); // Camel's error handler redelivers: the failed step again, as for its own node
            }
        }
        return run(from, exchange, callback, false);
    }

    /**
     * Runs the steps from {@code from} on. {@code resumed}: called from an asynchronous step's callback, after
     * {@link #process} returned false, so the run's end is reported as asynchronous.
     */
    private boolean run(int from, Exchange exchange, AsyncCallback callback, boolean resumed) {
        for (int i = from; i < steps.length; i++) {
            if (i > 0 && !proceed(exchange, i - 1)) {
                return end(callback, resumed);
            }
            ExchangeHelper.prepareOutToIn(exchange);
            AsyncProcessor step = async[i];
            if (step != null) {
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
        noteFailure(exchange, steps.length - 1);
        return end(callback, resumed);
    }

    /** Whether the run goes on after step {@code done} (as Camel's pipeline would go on to the next node). */
    private boolean proceed(Exchange exchange, int done) {
        noteFailure(exchange, done);
        return PipelineHelper.continueProcessing(exchange, "so breaking out of the fused steps", LOG);
    }

    /** A step that failed is where a redelivery of the exchange to this run starts. */
    private void noteFailure(Exchange exchange, int step) {
        if (exchange.getException() != null) {
            RESUME.set(exchange, new Resume(this, step));
        }
    }

    private static boolean end(AsyncCallback callback, boolean resumed) {
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
