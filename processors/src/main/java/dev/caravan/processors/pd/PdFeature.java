package dev.caravan.processors.pd;

import static dev.caravan.processors.config.FlagType.GROUPS;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.Arrays;
import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * Prefill/decode disaggregation (docs/pd.md).
 */
public final class PdFeature implements Feature {

    // ---- bean names (pd.camel.yaml) ---------------------------------------------------------------------------------

    public static final String SELECT_PD_PAIR = "selectPdPair";
    public static final String CALL_PREFILL = "callPrefill";
    public static final String CALL_DECODE = "callDecode";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag PD_DISAGGREGATION = ROWS.row("--pd-disaggregation", "caravan.pd.enabled",
            SWITCH, Sections.PD)
            .defaultValue(false)
            .describe("Serve chat, completions and generate requests with a prefill and a decode worker each "
                    + "(embeddings stay on regular workers).");
    public static final CaravanFlag PREFILL = ROWS.row("--prefill", "caravan.pd.prefill", GROUPS, Sections.PD)
            .describe("A prefill worker URL and its KV bootstrap port, or 'none' (sent as JSON null); repeat the flag "
                    + "per worker: --prefill http://p1:8000 8998 --prefill http://p2:8000 none.");
    public static final CaravanFlag DECODE = ROWS.row("--decode", "caravan.pd.decode", LIST, Sections.PD)
            .describe("Decode worker URLs (repeat the flag or list them).");
    public static final CaravanFlag PREFILL_POLICY = ROWS.row("--prefill-policy", "caravan.pd.prefill-policy",
            STRING, Sections.PD)
            .oneOf(FlagRows.POLICY_NAMES)
            .describe("Policy of the prefill pool (unset: --policy); the --policy options apply to it.");
    public static final CaravanFlag DECODE_POLICY = ROWS.row("--decode-policy", "caravan.pd.decode-policy",
            STRING, Sections.PD)
            .oneOf(FlagRows.POLICY_NAMES)
            .describe("Policy of the decode pool (unset: --policy); the --policy options apply to it.");
    public static final CaravanFlag PD_MODE = ROWS.row("--pd-mode", "caravan.pd.mode", STRING, Sections.PD)
            .defaultValue(PdConfig.DEFAULT_MODE.wireName())
            .oneOf(Choices.of(Arrays.stream(PdMode.values()).map(PdMode::wireName).toList()))
            .describe("P/D protocol: 'sglang' (both legs at once with a bootstrap rendezvous) or 'vllm' (prefill with "
                    + "max_tokens 1 first, then decode with the prefill's kv_transfer_params).");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
