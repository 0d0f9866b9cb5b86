package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.RunMaintenanceProcessor;
import dev.caravan.processors.forward.UpstreamClient;
import dev.caravan.processors.metrics.GatewayMetrics;
import dev.caravan.processors.pd.ApplyKvTransferProcessor;
import dev.caravan.processors.pd.CallLegProcessor;
import dev.caravan.processors.pd.ChoosePdModeProcessor;
import dev.caravan.processors.pd.DecideVerdictProcessor;
import dev.caravan.processors.pd.InjectBootstrapProcessor;
import dev.caravan.processors.pd.Leg;
import dev.caravan.processors.pd.LegOutcomes;
import dev.caravan.processors.pd.OpenDispatchProcessor;
import dev.caravan.processors.pd.PdAggregationStrategy;
import dev.caravan.processors.pd.PdConfig;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.pd.PdMetrics;
import dev.caravan.processors.pd.PdMode;
import dev.caravan.processors.pd.PrepareKvTransferProcessor;
import dev.caravan.processors.pd.RelayDecodeProcessor;
import dev.caravan.processors.pd.SelectPairProcessor;
import dev.caravan.processors.reliability.WorkerBreakers;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Prefill/decode disaggregation's part of the gateway (docs/pd.md): the prefill and decode pools — each its own
 * {@link PolicyRegistry}, so each pool has its own policy instance and cache tree per model ({@code --prefill-policy},
 * {@code --decode-policy}, falling back to {@code --policy}) — and every bean {@code routes/pd.camel.yaml} references.
 * The beans exist with or without {@code --pd-disaggregation} (the routes are always loaded; {@code choosePdMode}
 * sends nothing to them without it), so P/D workers registered through {@code POST /workers} are pooled either way.
 * The legs' outcomes feed the per-worker circuit breakers ({@code workerBreakers}, defined before this by
 * {@link ReliabilityBeans}); the P/D routes reuse the reliability steps {@code decideRetry} and {@code awaitBackoff}.
 */
public final class PdBeans {

    private PdBeans() {
    }

    public static boolean enabled(GatewayConfig config) {
        return config.getBoolean(PdFeature.PD_DISAGGREGATION);
    }

    /**
     * Adds the P/D beans.
     *
     * @throws IllegalArgumentException naming a bad P/D flag or policy option
     */
    static void define(GatewayConfig config, WorkerRegistry workers, UpstreamClient upstream, GatewayMetrics metrics,
                       Map<String, Object> beans) {
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
        PdMetrics pdMetrics = new PdMetrics(metrics.registry());
        LegOutcomes outcomes = new LegOutcomes();
        if (beans.get(BeanNames.WORKER_BREAKERS) instanceof WorkerBreakers breakers) {
            outcomes.addListener((leg, worker, outcome) -> breakers.record(worker, outcome)); // defined before us
        }
        String apiKey = config.apiKey();
        beans.put(BeanNames.PD_CONFIG, pd);
        beans.put(BeanNames.PREFILL_POLICY_REGISTRY, prefill);
        beans.put(BeanNames.DECODE_POLICY_REGISTRY, decode);
        beans.put(BeanNames.PD_METRICS, pdMetrics);
        beans.put(BeanNames.LEG_OUTCOMES, outcomes);
        // inference route (ingress.camel.yaml) and P/D routes (pd.camel.yaml)
        beans.put(BeanNames.CHOOSE_PD_MODE, new ChoosePdModeProcessor(pd));
        beans.put(PdFeature.SELECT_PD_PAIR, new SelectPairProcessor(prefill, decode, metrics, pdMetrics));
        beans.put(BeanNames.INJECT_BOOTSTRAP, new InjectBootstrapProcessor(ThreadLocalRandom::current));
        beans.put(BeanNames.OPEN_PD_DISPATCH, new OpenDispatchProcessor(upstream, pdMetrics));
        beans.put(PdFeature.CALL_PREFILL, new CallLegProcessor(Leg.PREFILL, apiKey));
        beans.put(PdFeature.CALL_DECODE, new CallLegProcessor(Leg.DECODE, apiKey));
        beans.put(BeanNames.PD_AGGREGATION, new PdAggregationStrategy(pdMetrics, outcomes));
        beans.put(BeanNames.RELAY_DECODE, new RelayDecodeProcessor(upstream, config.decisionHeaders(), outcomes));
        beans.put(BeanNames.PREPARE_KV_TRANSFER, new PrepareKvTransferProcessor());
        beans.put(BeanNames.APPLY_KV_TRANSFER, new ApplyKvTransferProcessor(outcomes));
        beans.put(BeanNames.DECIDE_PD_VERDICT, new DecideVerdictProcessor(outcomes));
        beans.put(BeanNames.RUN_PREFILL_MAINTENANCE, new RunMaintenanceProcessor(prefill, System::nanoTime));
        beans.put(BeanNames.RUN_DECODE_MAINTENANCE, new RunMaintenanceProcessor(decode, System::nanoTime));
    }

    /**
     * The P/D settings from the flag table.
     *
     * @throws IllegalArgumentException for a malformed {@code --prefill} occurrence, a bad worker URL, or workers
     *                                  without {@code --pd-disaggregation}
     */
    static PdConfig pdConfig(GatewayConfig config) {
        List<PdConfig.PrefillSpec> prefill = new ArrayList<>();
        for (List<String> group : config.getGroups(PdFeature.PREFILL)) {
            prefill.add(PdConfig.PrefillSpec.parse(group));
        }
        return new PdConfig(config.getBoolean(PdFeature.PD_DISAGGREGATION),
                PdMode.parse(config.get(PdFeature.PD_MODE)), prefill, config.getList(PdFeature.DECODE),
                config.get(PdFeature.PREFILL_POLICY), config.get(PdFeature.DECODE_POLICY));
    }

    /** Registers the {@code --prefill} (with their bootstrap ports) and {@code --decode} workers. */
    static void registerStaticWorkers(GatewayConfig config, WorkerRegistry workers) {
        PdConfig pd = pdConfig(config);
        for (PdConfig.PrefillSpec p : pd.prefill()) {
            workers.add(Worker.builder(p.url()).role(WorkerRole.PREFILL).bootstrapPort(p.bootstrapPort()).build());
        }
        for (String url : pd.decode()) {
            workers.add(Worker.builder(url).role(WorkerRole.DECODE).build());
        }
    }
}
