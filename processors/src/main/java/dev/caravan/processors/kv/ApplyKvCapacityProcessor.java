package dev.caravan.processors.kv;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.processors.control.ControlResult;

/**
 * Control step {@code applyKvCapacity} (after {@code planKvCapacityPoll} and {@code direct:call-workers}): reads each
 * worker's KV capacity and data-parallel size from its answers ({@code /get_server_info} preferred, else vLLM's
 * {@code /metrics}), records the capacity in {@link KvCapacities} and the DP size on the worker (unless its
 * registration declared one; the KV route manager then subscribes to every rank), and — with
 * {@code --max-tree-size auto} — hands every known capacity to the {@link TreeCalibrator} as tree budgets. Engines that answered neither keep what was known (failures are the call
 * route's to record).
 */
public final class ApplyKvCapacityProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(ApplyKvCapacityProcessor.class);

    private final KvCapacities capacities;
    private final TreeCalibrator budgets;
    private final Consumer<Worker> dataParallelChanged;

    /** @param budgets where to apply budgets, or null when tree budgets are not automatic */
    public ApplyKvCapacityProcessor(KvCapacities capacities, TreeCalibrator budgets) {
        this(capacities, budgets, w -> { });
    }

    /**
     * @param budgets             where to apply budgets, or null when tree budgets are not automatic
     * @param dataParallelChanged told of each worker whose engine reported a new data-parallel size (the KV route
     *                            manager subscribes to its other ranks)
     */
    public ApplyKvCapacityProcessor(KvCapacities capacities, TreeCalibrator budgets,
                                    Consumer<Worker> dataParallelChanged) {
        this.capacities = capacities;
        this.budgets = budgets;
        this.dataParallelChanged = dataParallelChanged;
    }

    @Override
    public void process(Exchange exchange) {
        Map<Worker, KvCapacity> found = new HashMap<>();
        Map<Worker, Integer> ranks = new HashMap<>();
        Object body = exchange.getMessage().getBody();
        for (Object o : body instanceof List<?> list ? list : List.of()) {
            if (!(o instanceof ControlResult r) || !r.ok()) {
                continue;
            }
            boolean serverInfo = r.call().path().equals(PlanKvCapacityPollProcessor.SERVER_INFO);
            int dp = serverInfo ? DataParallelSize.fromServerInfo(r.body()) : DataParallelSize.fromMetrics(r.body());
            if (dp > 0 && (serverInfo || !ranks.containsKey(r.call().worker()))) {
                ranks.put(r.call().worker(), dp);
            }
            KvCapacity c = serverInfo ? KvCapacity.fromServerInfo(r.body()) : KvCapacity.fromMetrics(r.body());
            if (c != null && (serverInfo || !found.containsKey(r.call().worker()))) {
                found.put(r.call().worker(), c);
            }
        }
        found.forEach((w, c) -> {
            if (!c.equals(capacities.capacity(w.id()))) {
                LOG.info("KV capacity of {}: {} tokens, block size {}", w.url(), c.tokens(), c.blockSize());
            }
            capacities.record(w.id(), c);
        });
        ranks.forEach((w, n) -> {
            if (!w.dataParallelSizeDeclared() && n != w.dataParallelSize()) {
                LOG.info("Engine of {} runs {} data-parallel ranks", w.url(), n);
                w.setDataParallelSize(n);
                dataParallelChanged.accept(w);
            }
        });
        if (budgets != null) {
            budgets.applyBudgets(capacities.known());
        }
    }
}
