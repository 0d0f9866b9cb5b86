package dev.caravan.bench.drive;

import java.util.List;
import java.util.function.IntSupplier;

import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * The simulated engines of one policy run, in this JVM on 127.0.0.1 ephemeral ports: a fresh fleet per run, so every
 * policy starts with cold caches. The load balancer in front is added by subclasses.
 */
abstract class SimFleetTarget implements Target {

    protected final SimFleet fleet;

    protected SimFleetTarget(int engines, SimConfig engine) {
        this.fleet = SimFleet.start(engines, engine);
    }

    @Override
    public List<String> engines() {
        return java.util.stream.IntStream.range(0, fleet.size()).mapToObj(String::valueOf).toList();
    }

    @Override
    public IntSupplier[] inflightProbes() {
        IntSupplier[] p = new IntSupplier[fleet.size()];
        for (int i = 0; i < p.length; i++) {
            SimEngine e = fleet.engine(i);
            p[i] = () -> e.running() + e.waiting();
        }
        return p;
    }

    /** Stops the load balancer, then the engines. */
    @Override
    public void close() {
        try {
            closeBalancer();
        } finally {
            fleet.close();
        }
    }

    protected abstract void closeBalancer();
}
