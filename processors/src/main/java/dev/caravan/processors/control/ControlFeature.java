package dev.caravan.processors.control;

import static dev.caravan.processors.config.FlagType.LONG;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * The control plane (control.camel.yaml): calls to every worker (load polls, model lists, cache flushes) and policy housekeeping.
 */
public final class ControlFeature implements Feature {

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag CONTROL_TIMEOUT_SECS = ROWS.row("--control-timeout-secs", "caravan.control-timeout-secs",
            LONG, Sections.CONTROL)
            .defaultValue(GatewayConfig.DEFAULT_CONTROL_TIMEOUT_SECS).range(1, FlagRows.MAX_SECONDS)
            .describe("Limit for one control-plane call (load poll, /flush_cache, /v1/models, /get_loads), in "
                    + "seconds.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
