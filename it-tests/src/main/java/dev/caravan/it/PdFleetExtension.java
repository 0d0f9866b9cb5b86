package dev.caravan.it;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.sim.EngineRole;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * A prefill/decode fleet of simulated engines for a test class: prefill engines (each with an ephemeral KV bootstrap
 * port) and decode engines on 127.0.0.1, started before all tests and stopped after, plus the gateway configuration
 * that registers them ({@code --pd-disaggregation --prefill URL PORT ... --decode URL ...}).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PdFleetExtension PD = new PdFleetExtension(2, 2, b -> b.decodeMsPerToken(5));
 * GatewayHarness gw = GatewayHarness.start(PD.gatewayConfig());
 * }</pre>
 */
public final class PdFleetExtension implements BeforeAllCallback, AfterAllCallback {

    private final int prefillCount;
    private final int decodeCount;
    private final SimConfig prefillConfig;
    private final SimConfig decodeConfig;
    private SimFleet prefill;
    private SimFleet decode;

    /**
     * @param prefillCount engines in the prefill role
     * @param decodeCount  engines in the decode role
     * @param configure    adjusts the configuration of every engine (both roles)
     */
    public PdFleetExtension(int prefillCount, int decodeCount, UnaryOperator<SimConfig.Builder> configure) {
        this(prefillCount, decodeCount, configure, configure);
    }

    public PdFleetExtension(int prefillCount, int decodeCount, UnaryOperator<SimConfig.Builder> prefillSetup,
                            UnaryOperator<SimConfig.Builder> decodeSetup) {
        this.prefillCount = prefillCount;
        this.decodeCount = decodeCount;
        this.prefillConfig = prefillSetup.apply(SimConfig.builder()).role(EngineRole.PREFILL).bootstrapPort(0).build();
        this.decodeConfig = decodeSetup.apply(SimConfig.builder()).role(EngineRole.DECODE).build();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        prefill = SimFleet.start(prefillCount, prefillConfig);
        try {
            decode = SimFleet.start(decodeCount, decodeConfig);
        } catch (RuntimeException e) {
            prefill.close();
            throw e;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (decode != null) {
            decode.close();
        }
        if (prefill != null) {
            prefill.close();
        }
    }

    public SimEngine prefill(int i) {
        return prefill.engine(i);
    }

    public SimEngine decode(int i) {
        return decode.engine(i);
    }

    public List<SimEngine> prefills() {
        return prefill.engines();
    }

    public List<SimEngine> decodes() {
        return decode.engines();
    }

    /** The model id the engines serve. */
    public String model() {
        return prefillConfig.model();
    }

    /** The {@code caravan.pd.prefill} value: {@code URL BOOTSTRAP_PORT} per prefill engine. */
    public String prefillGroups() {
        List<String> groups = new ArrayList<>();
        for (SimEngine e : prefill.engines()) {
            groups.add(e.url() + " " + e.bootstrapPort());
        }
        return String.join(",", groups);
    }

    /** A gateway on 127.0.0.1:0 with P/D on and this fleet registered. */
    public GatewayConfig gatewayConfig() {
        return GatewayHarness.config(List.of())
                .with(PdFeature.PD_DISAGGREGATION, "true")
                .with(PdFeature.PREFILL, prefillGroups())
                .with(PdFeature.DECODE, String.join(",", decode.urls()));
    }

    /** Clears every engine's faults and counters. */
    public void reset() {
        for (SimEngine e : prefill.engines()) {
            e.resetFaults();
            e.stats().reset();
        }
        for (SimEngine e : decode.engines()) {
            e.resetFaults();
            e.stats().reset();
        }
    }
}
