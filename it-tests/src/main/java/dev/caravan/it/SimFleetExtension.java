package dev.caravan.it;

import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * Simulated engines for a test class: started on 127.0.0.1 ephemeral ports before all tests, stopped after.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.decodeMsPerToken(5));
 * }</pre>
 */
public final class SimFleetExtension implements BeforeAllCallback, AfterAllCallback {

    private final int engines;
    private final SimConfig config;
    private SimFleet fleet;

    /**
     * @param engines   how many engines
     * @param configure adjusts the default engine configuration
     */
    public SimFleetExtension(int engines, UnaryOperator<SimConfig.Builder> configure) {
        this.engines = engines;
        this.config = configure.apply(SimConfig.builder()).build();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        fleet = SimFleet.start(engines, config);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (fleet != null) {
            fleet.close();
        }
    }

    public SimFleet fleet() {
        return fleet;
    }

    public List<String> urls() {
        return fleet.urls();
    }

    public SimEngine engine(int i) {
        return fleet.engine(i);
    }

    /** The model id the engines serve. */
    public String model() {
        return config.model();
    }

    /** Clears every engine's faults (for tests that inject some). */
    public void resetFaults() {
        fleet.engines().forEach(SimEngine::resetFaults);
    }
}
