package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;

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
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.quality.DecisionQuality;
import dev.caravan.processors.quality.DecisionQualityConfig;
import dev.caravan.processors.quality.MeasurePrefixesProcessor;
import dev.caravan.processors.quality.PrefixOracle;
import dev.caravan.processors.quality.QualityFeature;
import dev.caravan.processors.quality.ScoreShadowPoliciesProcessor;
import dev.caravan.processors.quality.ShadowPolicies;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Decision quality and shadow policies (docs/observability.md, "Decision quality"): the steps {@code measurePrefixes}
 * and {@code scoreShadowPolicies} of the regular attempt body (the inference route). With neither {@code --decision-quality} nor
 * {@code --shadow-policies} the first does nothing and the second is never reached. Also kv_aware's fallback to
 * cache_aware while its parity self-check is degraded ({@code --kv-parity-fallback}).
 */
final class QualityBeans {

    private QualityBeans() {
    }

    /**
     * The {@code --shadow-policies}, each with its own per-model instances over the regular pool, built with the
     * policy options of the live policy. Shadows share the KV index but feed no parity self-check and no replica sync.
     */
    static ShadowPolicies shadows(GatewayConfig config, WorkerRegistry workers, KvGroundTruth kv,
                                  boolean canonicalOrder) {
        List<String> names = config.getList(QualityFeature.SHADOW_POLICIES);
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
    static LoadBalancingPolicy withParityFallback(GatewayConfig config, LoadBalancingPolicy policy,
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
        return new DecisionQualityConfig(config.getBoolean(QualityFeature.DECISION_QUALITY),
                config.getDouble(QualityFeature.DECISION_QUALITY_WARN_BELOW),
                config.getInt(QualityFeature.DECISION_QUALITY_WINDOW), DecisionQualityConfig.DEFAULT_WARN_INTERVAL,
                DecisionQualityConfig.DEFAULT_CHARS_PER_TOKEN);
    }

    static void define(GatewayConfig config, PolicyRegistry policies, ShadowPolicies shadows, MeterRegistry registry,
                       Map<String, Object> beans) {
        DecisionQualityConfig quality = config(config);
        DecisionQuality metrics = quality.enabled() ? new DecisionQuality(registry, quality, System::nanoTime) : null;
        beans.put(BeanNames.MEASURE_PREFIXES, new MeasurePrefixesProcessor(policies, new PrefixOracle(shadows),
                metrics, !shadows.isEmpty()));
        beans.put(BeanNames.SCORE_SHADOW_POLICIES, new ScoreShadowPoliciesProcessor(policies, shadows, registry,
                quality.charsPerToken()));
    }
}
