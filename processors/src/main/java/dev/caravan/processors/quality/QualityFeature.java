package dev.caravan.processors.quality;

import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.policies.kv.KvAwarePolicy;
import dev.caravan.policies.kv.KvGroundTruth;
import dev.caravan.policies.kv.ParityFallbackPolicy;
import dev.caravan.policies.kv.ParityTracker;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.routing.PolicyPools;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Decision quality and shadow policies (docs/observability.md, "Decision quality"): the steps {@code measurePrefixes}
 * and {@code scoreShadowPolicies} of the regular attempt body (the inference route). With neither
 * {@code --decision-quality} nor {@code --shadow-policies} the first does nothing and the second is never reached.
 * Also kv_aware's fallback to cache_aware while its parity self-check is degraded ({@code --kv-parity-fallback}),
 * which the assembler applies when it builds the live policies ({@link #withParityFallback}), and the shadows it
 * builds with them ({@link #shadows}) and shares as {@link ShadowPolicies} before this feature wires; the shadows'
 * pools join the maintained ones ({@link PolicyPools}).
 */
public final class QualityFeature implements Feature {

    /** What each worker held of the request before the decision (--decision-quality, --shadow-policies). */
    public static final String MEASURE_PREFIXES = "measurePrefixes";
    /** The shadow policies' step, on a wire-tapped copy (--shadow-policies). */
    public static final String SCORE_SHADOW_POLICIES = "scoreShadowPolicies";

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

    @Override
    public void wire(Wiring w) {
        DecisionQualityConfig quality = config(w.config());
        PolicyRegistry policies = w.get(Wiring.POLICY_REGISTRY, PolicyRegistry.class);
        ShadowPolicies shadows = w.shared(ShadowPolicies.class);
        shadows.registries().forEach(w.shared(PolicyPools.class)::maintain);
        DecisionQuality metrics = quality.enabled() ? new DecisionQuality(w.meters(), quality, System::nanoTime)
                : null;
        w.bind(MEASURE_PREFIXES, new MeasurePrefixesProcessor(policies, new PrefixOracle(shadows), metrics,
                !shadows.isEmpty()));
        w.bind(SCORE_SHADOW_POLICIES, new ScoreShadowPoliciesProcessor(policies, shadows, w.meters(),
                quality.charsPerToken()));
    }

    /**
     * The {@code --shadow-policies}, each with its own per-model instances over the regular pool, built with the
     * policy options of the live policy. Shadows share the KV index but feed no parity self-check and no replica sync.
     */
    public static ShadowPolicies shadows(GatewayConfig config, WorkerRegistry workers, KvGroundTruth kv,
                                         boolean canonicalOrder) {
        List<String> names = config.getList(SHADOW_POLICIES);
        if (names.isEmpty()) {
            return ShadowPolicies.NONE;
        }
        PolicyEnvironment env = PolicyEnvironment.system()
                .withKv(new KvGroundTruth(kv.index(), null, kv.tokenizers()));
        List<ShadowPolicies.Shadow> shadows = new ArrayList<>();
        for (String name : new LinkedHashSet<>(names)) {
            String canonical = PolicyName.resolve(name.trim()).wireName();
            PolicyConfig policy = PolicyConfig.fromOptions(canonical, config.policyOptions());
            shadows.add(new ShadowPolicies.Shadow(canonical, new PolicyRegistry(workers, WorkerRole.REGULAR,
                    model -> PolicyFactory.create(policy, env), canonicalOrder)));
        }
        return new ShadowPolicies(shadows);
    }

    /**
     * With {@code --kv-parity-fallback}, a kv_aware policy wrapped to route by cache_aware (the same policy options)
     * while its parity self-check is degraded; any other policy, or no self-check, as it is.
     */
    public static LoadBalancingPolicy withParityFallback(GatewayConfig config, LoadBalancingPolicy policy,
                                                         PolicyEnvironment env) {
        ParityTracker parity = env.kv() == null ? null : env.kv().parity();
        if (!config.getBoolean(KvFeature.KV_PARITY_FALLBACK) || !(policy instanceof KvAwarePolicy kv)
                || parity == null) {
            return policy;
        }
        LoadBalancingPolicy fallback = PolicyFactory.create(PolicyConfig.fromOptions(
                PolicyName.CACHE_AWARE.wireName(), config.policyOptions()), env);
        return new ParityFallbackPolicy(kv, fallback, parity, ParityFallbackPolicy.DEFAULT_PROBE_EVERY);
    }

    static DecisionQualityConfig config(GatewayConfig config) {
        return new DecisionQualityConfig(config.getBoolean(DECISION_QUALITY),
                config.getDouble(DECISION_QUALITY_WARN_BELOW), config.getInt(DECISION_QUALITY_WINDOW),
                DecisionQualityConfig.DEFAULT_WARN_INTERVAL, DecisionQualityConfig.DEFAULT_CHARS_PER_TOKEN);
    }
}
