package dev.caravan.processors.quality;

import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * Decision quality and shadow policies (docs/observability.md, "Decision quality").
 */
public final class QualityFeature implements Feature {

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag SHADOW_POLICIES = ROWS.row("--shadow-policies", "caravan.shadow-policies", LIST,
            Sections.POLICY)
            .pattern(FlagRows.policyNamePattern(), "policy names")
            .describe("Policies scored on live traffic but never followed: per request, what each would have chosen and "
                    + "what its pick held of the prompt (caravan_shadow_*, docs/observability.md); no engine calls.");
    public static final CaravanFlag DECISION_QUALITY = ROWS.row("--decision-quality", "caravan.decision-quality.enabled",
            SWITCH, Sections.OBSERVABILITY)
            .defaultValue(false)
            .describe("Per policy, count the prefix tokens the chosen worker held, the most any healthy worker held, "
                    + "and the cached_tokens the engine reported (caravan_decision_*, docs/observability.md).");
    public static final CaravanFlag DECISION_QUALITY_WARN_BELOW = ROWS.row("--decision-quality-warn-below",
            "caravan.decision-quality.warn-below", DOUBLE, Sections.OBSERVABILITY)
            .defaultValue(DecisionQualityConfig.DEFAULT_WARN_BELOW).range(0.0, 1.0)
            .describe("--decision-quality: warn (at most once a minute per policy) when captured / reachable prefix "
                    + "tokens over the window drops below this; 0 never warns.");
    public static final CaravanFlag DECISION_QUALITY_WINDOW = ROWS.row("--decision-quality-window",
            "caravan.decision-quality.window", INT, Sections.OBSERVABILITY)
            .defaultValue(DecisionQualityConfig.DEFAULT_WINDOW).range(1, 1_000_000)
            .describe("--decision-quality: requests whose engine reported cached_tokens that the ratio is taken over.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
