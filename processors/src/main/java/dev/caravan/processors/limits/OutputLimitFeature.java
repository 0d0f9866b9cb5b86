package dev.caravan.processors.limits;

import static dev.caravan.processors.config.FlagType.INT;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;

/**
 * The cap on generated tokens per request ({@code --max-output-tokens}): one flag, one processor and one step of the
 * inference route ({@code checkOutputTokens}, after {@code parseRequest} in ingress.camel.yaml), so that one client
 * cannot hold an engine's slot for a generation far longer than the fleet is sized for.
 */
public final class OutputLimitFeature implements Feature {

    /** The inference route's step (ingress.camel.yaml). */
    public static final String CHECK_OUTPUT_TOKENS = "checkOutputTokens";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag MAX_OUTPUT_TOKENS = ROWS.row("--max-output-tokens",
            "caravan.limits.max-output-tokens", INT, Sections.SECURITY)
            .defaultValue(CheckOutputTokensProcessor.NO_LIMIT)
            .special(Integer.toString(CheckOutputTokensProcessor.NO_LIMIT), "no limit").min(1)
            .describe("Most generated tokens a request may ask for (max_tokens, max_completion_tokens, "
                    + "max_output_tokens, sampling_params.max_new_tokens); more gets 400. A request that sets none "
                    + "passes, with the engine's default.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        w.bind(CHECK_OUTPUT_TOKENS, new CheckOutputTokensProcessor(w.config().getInt(MAX_OUTPUT_TOKENS)));
    }
}
