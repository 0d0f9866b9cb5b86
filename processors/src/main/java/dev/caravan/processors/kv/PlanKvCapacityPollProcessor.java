package dev.caravan.processors.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.control.ControlCall;

/**
 * Control step {@code planKvCapacityPoll} (the {@code kv-capacity} timer route): sets the body to the
 * {@link ControlCall}s that ask each due worker ({@link KvCapacities#due}) among those with something to learn for its
 * KV capacity and data-parallel size: {@code GET /get_server_info} (SGLang, the simulator) and {@code GET /metrics}
 * (vLLM's {@code vllm:cache_config_info} and {@code engine} labels). An empty list when nobody is due;
 * {@code direct:call-workers} then calls nothing.
 */
public final class PlanKvCapacityPollProcessor implements Processor {

    /** SGLang's server-info path. */
    public static final String SERVER_INFO = "/get_server_info";
    /** The Prometheus path (vLLM's cache configuration gauge). */
    public static final String METRICS = "/metrics";

    private final WorkerRegistry workers;
    private final KvCapacities capacities;
    private final LongSupplier nanoTime;
    private final Predicate<Worker> asks;

    /** Asks every worker. */
    public PlanKvCapacityPollProcessor(WorkerRegistry workers, KvCapacities capacities, LongSupplier nanoTime) {
        this(workers, capacities, nanoTime, w -> true);
    }

    /** @param asks which workers have something to learn (the others are never called) */
    public PlanKvCapacityPollProcessor(WorkerRegistry workers, KvCapacities capacities, LongSupplier nanoTime,
                                       Predicate<Worker> asks) {
        this.workers = workers;
        this.capacities = capacities;
        this.nanoTime = nanoTime;
        this.asks = asks;
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlCall> calls = new ArrayList<>();
        List<Worker> asked = new ArrayList<>();
        for (Worker w : workers.all()) {
            if (asks.test(w)) {
                asked.add(w);
            }
        }
        for (Worker w : capacities.due(asked, nanoTime.getAsLong())) {
            calls.add(new ControlCall(w, "GET", SERVER_INFO, null));
            calls.add(new ControlCall(w, "GET", METRICS, null));
        }
        exchange.getMessage().setBody(calls);
    }
}
