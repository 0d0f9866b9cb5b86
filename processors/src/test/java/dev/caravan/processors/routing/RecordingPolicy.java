package dev.caravan.processors.routing;

import java.util.ArrayList;
import java.util.List;

import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/** Test policy: picks the first candidate (or declines), and records what it was told. */
final class RecordingPolicy implements LoadBalancingPolicy {

    final String model;
    final List<String> events = new ArrayList<>();
    final List<SelectionContext> contexts = new ArrayList<>();
    boolean decline;
    /** The rank each decision pins (null: none), and what releasing its lease records. */
    Integer rank;

    RecordingPolicy(String model) {
        this.model = model;
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        contexts.add(context);
        if (decline || candidates.isEmpty()) {
            return Decision.none(name(), "declined");
        }
        Worker w = candidates.get(0);
        return Decision.of(w, name(), "first").withDataParallelRank(rank)
                .withOnRelease(() -> events.add("released " + w.url()));
    }

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        events.add("added " + worker.url());
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        events.add("removed " + worker.url());
    }

    @Override
    public void onRequestComplete(Worker worker, boolean success) {
        events.add("complete " + worker.url() + " " + success);
    }
}
