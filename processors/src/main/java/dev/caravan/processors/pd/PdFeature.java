package dev.caravan.processors.pd;

import static dev.caravan.processors.config.FlagType.GROUPS;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.RunMaintenanceProcessor;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.forward.UpstreamClient;
import dev.caravan.processors.metrics.GatewayMetrics;
import dev.caravan.processors.reliability.WorkerBreakers;
import dev.caravan.processors.routing.PolicyPools;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Prefill/decode disaggregation (docs/pd.md): the prefill and decode pools — each its own {@link PolicyRegistry}, so
 * each pool has its own policy instance and cache tree per model ({@code --prefill-policy}, {@code --decode-policy},
 * falling back to {@code --policy}) — and every bean {@code routes/pd.camel.yaml} references. The beans exist with or
 * without {@code --pd-disaggregation} (the routes are always loaded; {@code choosePdMode} sends nothing to them without
 * it), so P/D workers registered through {@code POST /workers} are pooled either way. The legs' outcomes feed the
 * per-worker circuit breakers (the shared {@link WorkerBreakers}); the P/D routes reuse the reliability steps
 * {@code decideRetry} and {@code awaitBackoff}.
 */
public final class PdFeature implements Feature {

    // ---- bean names (ingress.camel.yaml, pd.camel.yaml) -------------------------------------------------------------

    public static final String CHOOSE_PD_MODE = "choosePdMode";
    public static final String SELECT_PD_PAIR = "selectPdPair";
    public static final String INJECT_BOOTSTRAP = "injectBootstrap";
    public static final String OPEN_PD_DISPATCH = "openPdDispatch";
    public static final String CALL_PREFILL = "callPrefill";
    public static final String CALL_DECODE = "callDecode";
    /** The SGLang P/D multicast's aggregation strategy. */
    public static final String PD_AGGREGATION = "pdAggregation";
    public static final String RELAY_DECODE = "relayDecode";
    public static final String PREPARE_KV_TRANSFER = "prepareKvTransfer";
    public static final String APPLY_KV_TRANSFER = "applyKvTransfer";
    public static final String DECIDE_PD_VERDICT = "decidePdVerdict";
    public static final String RUN_PREFILL_MAINTENANCE = "runPrefillMaintenance";
    public static final String RUN_DECODE_MAINTENANCE = "runDecodeMaintenance";
    /** The P/D settings ({@link PdConfig}). */
    public static final String PD_CONFIG = "pdConfig";
    public static final String PD_METRICS = "pdMetrics";
    public static final String LEG_OUTCOMES = "legOutcomes";

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

    /** True with {@code --pd-disaggregation}. */
    public static boolean enabled(GatewayConfig config) {
        return config.getBoolean(PD_DISAGGREGATION);
    }

    /**
     * Binds the P/D beans, the pools' registries under {@link Wiring#PREFILL_POLICY_REGISTRY} and
     * {@link Wiring#DECODE_POLICY_REGISTRY}.
     *
     * @throws IllegalArgumentException naming a bad P/D flag or policy option
     */
    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        WorkerRegistry workers = w.workers();
        GatewayMetrics metrics = w.get(Wiring.GATEWAY_METRICS, GatewayMetrics.class);
        UpstreamClient upstream = w.shared(UpstreamClient.class);
        PdConfig pd = pdConfig(config);
        PolicyEnvironment env = PolicyEnvironment.system();
        PolicyConfig prefillPolicy = PolicyConfig.fromOptions(pd.prefillPolicyOr(config.policyName()),
                config.policyOptions());
        PolicyConfig decodePolicy = PolicyConfig.fromOptions(pd.decodePolicyOr(config.policyName()),
                config.policyOptions());
        PolicyRegistry prefill = new PolicyRegistry(workers, WorkerRole.PREFILL,
                model -> PolicyFactory.create(prefillPolicy, env));
        PolicyRegistry decode = new PolicyRegistry(workers, WorkerRole.DECODE,
                model -> PolicyFactory.create(decodePolicy, env));
        metrics.trackPolicies(prefill);
        metrics.trackPolicies(decode);
        PolicyPools pools = w.shared(PolicyPools.class); // maintained by this feature's own timer routes
        pools.forgetOnFlush(prefill);
        pools.forgetOnFlush(decode);
        PdMetrics pdMetrics = new PdMetrics(metrics.registry());
        LegOutcomes outcomes = new LegOutcomes();
        WorkerBreakers breakers = w.shared(WorkerBreakers.class);
        outcomes.addListener((leg, worker, outcome) -> breakers.record(worker, outcome));
        String apiKey = config.apiKey();
        w.bind(PD_CONFIG, pd);
        w.bind(Wiring.PREFILL_POLICY_REGISTRY, prefill);
        w.bind(Wiring.DECODE_POLICY_REGISTRY, decode);
        w.bind(PD_METRICS, pdMetrics);
        w.bind(LEG_OUTCOMES, outcomes);
        w.bind(CHOOSE_PD_MODE, new ChoosePdModeProcessor(pd));
        w.bind(SELECT_PD_PAIR, new SelectPairProcessor(prefill, decode, metrics, pdMetrics));
        w.bind(INJECT_BOOTSTRAP, new InjectBootstrapProcessor(ThreadLocalRandom::current));
        w.bind(OPEN_PD_DISPATCH, new OpenDispatchProcessor(upstream, pdMetrics));
        w.bind(CALL_PREFILL, new CallLegProcessor(Leg.PREFILL, apiKey));
        w.bind(CALL_DECODE, new CallLegProcessor(Leg.DECODE, apiKey));
        w.bind(PD_AGGREGATION, new PdAggregationStrategy(pdMetrics, outcomes));
        w.bind(RELAY_DECODE, new RelayDecodeProcessor(upstream, config.decisionHeaders(), outcomes));
        w.bind(PREPARE_KV_TRANSFER, new PrepareKvTransferProcessor());
        w.bind(APPLY_KV_TRANSFER, new ApplyKvTransferProcessor(outcomes));
        w.bind(DECIDE_PD_VERDICT, new DecideVerdictProcessor(outcomes));
        w.bind(RUN_PREFILL_MAINTENANCE, new RunMaintenanceProcessor(prefill, System::nanoTime));
        w.bind(RUN_DECODE_MAINTENANCE, new RunMaintenanceProcessor(decode, System::nanoTime));
    }

    /**
     * The P/D settings from the flag table.
     *
     * @throws IllegalArgumentException for a malformed {@code --prefill} occurrence, a bad worker URL, or workers
     *                                  without {@code --pd-disaggregation}
     */
    public static PdConfig pdConfig(GatewayConfig config) {
        List<PdConfig.PrefillSpec> prefill = new ArrayList<>();
        for (List<String> group : config.getGroups(PREFILL)) {
            prefill.add(PdConfig.PrefillSpec.parse(group));
        }
        return new PdConfig(config.getBoolean(PD_DISAGGREGATION), PdMode.parse(config.get(PD_MODE)), prefill,
                config.getList(DECODE), config.get(PREFILL_POLICY), config.get(DECODE_POLICY));
    }

    /** Registers the {@code --prefill} (with their bootstrap ports) and {@code --decode} workers. */
    public static void registerStaticWorkers(GatewayConfig config, WorkerRegistry workers) {
        PdConfig pd = pdConfig(config);
        for (PdConfig.PrefillSpec p : pd.prefill()) {
            workers.add(Worker.builder(p.url()).role(WorkerRole.PREFILL).bootstrapPort(p.bootstrapPort()).build());
        }
        for (String url : pd.decode()) {
            workers.add(Worker.builder(url).role(WorkerRole.DECODE).build());
        }
    }
}
