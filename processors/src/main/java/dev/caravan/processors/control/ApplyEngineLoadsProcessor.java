package dev.caravan.processors.control;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.Worker;

/**
 * Control step {@code applyEngineLoads} (the {@code load-monitor} timer route, after polling {@code /get_load} and
 * {@code /metrics} of every worker): merges each worker's two answers into an {@link EngineLoad} and publishes it with
 * {@link Worker#setEngineLoad}. Readers: power_of_two (token loads), kv_aware with {@code kv-decode-load-source engine},
 * and, when {@code --balance-engine-load} is on, cache_aware's imbalance guard and least-loaded choices, which count
 * {@code max(in-flight, running + waiting)}. {@code /get_load} supplies tokens (and request counts when {@code /metrics}
 * has none); {@code /metrics} supplies running and waiting requests and KV usage. A worker that answered neither keeps
 * its previous (aging) value: its {@code polledAtNanos} tells readers how old it is, and cache_aware ignores it once it
 * is older than {@code engine-load-max-age} (twice the poll interval, {@code EngineLoad.isFresh}).
 */
public final class ApplyEngineLoadsProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(ApplyEngineLoadsProcessor.class);

    /** Path of SGLang's load endpoint. */
    public static final String GET_LOAD = "/get_load";
    /** Path of the engines' Prometheus endpoint. */
    public static final String METRICS = "/metrics";

    private final LongSupplier nanoTime;

    public ApplyEngineLoadsProcessor(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    @Override
    public void process(Exchange exchange) {
        Map<Worker, EngineLoadParser.Figures[]> byWorker = new LinkedHashMap<>();
        List<ControlResult> results = ControlResults.of(exchange);
        for (ControlResult r : results) {
            EngineLoadParser.Figures[] f = byWorker.computeIfAbsent(r.call().worker(),
                    w -> new EngineLoadParser.Figures[] {EngineLoadParser.Figures.NONE, EngineLoadParser.Figures.NONE});
            if (!r.ok()) {
                continue;
            }
            if (r.call().path().equals(GET_LOAD)) {
                f[0] = EngineLoadParser.fromGetLoad(r.body());
            } else if (r.call().path().equals(METRICS)) {
                f[1] = EngineLoadParser.fromMetrics(r.body());
            }
        }
        long now = nanoTime.getAsLong();
        byWorker.forEach((worker, f) -> {
            EngineLoadParser.Figures load = f[0];
            EngineLoadParser.Figures metrics = f[1];
            if (load == EngineLoadParser.Figures.NONE && metrics == EngineLoadParser.Figures.NONE) {
                LOG.debug("No load figures from {} this round", worker.url());
                return;
            }
            EngineLoad engine = new EngineLoad(load.tokens(),
                    metrics.running() >= 0 ? metrics.running() : load.running(),
                    metrics.waiting() >= 0 ? metrics.waiting() : load.waiting(),
                    metrics.kvUsage(), now);
            worker.setEngineLoad(engine);
            LOG.debug("Engine load of {}: {}", worker.url(), engine);
        });
    }
}
