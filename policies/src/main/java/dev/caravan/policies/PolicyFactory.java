package dev.caravan.policies;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.caravan.policies.internal.BoundedConsistentHashingPolicy;
import dev.caravan.policies.internal.BucketPolicy;
import dev.caravan.policies.internal.CacheAwarePolicy;
import dev.caravan.policies.internal.ConsistentHashingPolicy;
import dev.caravan.policies.internal.ManualPolicy;
import dev.caravan.policies.internal.PowerOfTwoPolicy;
import dev.caravan.policies.internal.PrefixHashPolicy;
import dev.caravan.policies.internal.RandomPolicy;
import dev.caravan.policies.internal.RoundRobinPolicy;
import dev.caravan.policies.kv.KvAwarePolicy;
import dev.caravan.policies.kv.KvGroundTruth;

/**
 * Builds policies. Dispatch goes through {@link PolicyConfig.Visitor}, which has one method per config record, so a
 * new record without a case here is a compile error (the Java 17 stand-in for an exhaustive pattern switch).
 *
 * <pre>{@code
 * LoadBalancingPolicy p = PolicyFactory.create("cache_aware", Map.of("cache-threshold", "0.5"),
 *         PolicyEnvironment.system());
 * }</pre>
 */
public final class PolicyFactory {

    private PolicyFactory() {
    }

    public static LoadBalancingPolicy create(PolicyConfig config, PolicyEnvironment env) {
        Objects.requireNonNull(env, "env");
        return config.accept(new Builder(env));
    }

    /**
     * Resolves the name (case-insensitive, SGLang aliases) and options, then builds the policy.
     *
     * @throws IllegalArgumentException for an unknown name or a bad option, see {@link PolicyConfig#fromOptions}
     */
    public static LoadBalancingPolicy create(String name, Map<String, String> options, PolicyEnvironment env) {
        return create(PolicyConfig.fromOptions(name, options), env);
    }

    /** The canonical policy names: SGLang's in its registration order, then Caravan's {@code kv_aware}. */
    public static List<String> names() {
        return PolicyName.canonicalNames();
    }

    private record Builder(PolicyEnvironment env) implements PolicyConfig.Visitor<LoadBalancingPolicy> {

        @Override
        public LoadBalancingPolicy visit(RandomConfig config) {
            return new RandomPolicy(env);
        }

        @Override
        public LoadBalancingPolicy visit(RoundRobinConfig config) {
            return new RoundRobinPolicy();
        }

        @Override
        public LoadBalancingPolicy visit(PowerOfTwoConfig config) {
            return new PowerOfTwoPolicy(env);
        }

        @Override
        public LoadBalancingPolicy visit(CacheAwareConfig config) {
            return new CacheAwarePolicy(config, env);
        }

        @Override
        public LoadBalancingPolicy visit(BucketConfig config) {
            return new BucketPolicy(config, env);
        }

        @Override
        public LoadBalancingPolicy visit(ManualConfig config) {
            return new ManualPolicy(config, env);
        }

        @Override
        public LoadBalancingPolicy visit(ConsistentHashingConfig config) {
            return new ConsistentHashingPolicy(env);
        }

        @Override
        public LoadBalancingPolicy visit(PrefixHashConfig config) {
            return new PrefixHashPolicy(config);
        }

        @Override
        public LoadBalancingPolicy visit(BoundedConsistentHashingConfig config) {
            return new BoundedConsistentHashingPolicy(config, env);
        }

        /** Needs the KV ground truth: without KV events there is nothing precise to route on. */
        @Override
        public LoadBalancingPolicy visit(KvAwareConfig config) {
            KvGroundTruth kv = env.kv();
            if (kv == null) {
                throw new IllegalStateException("kv_aware needs the KV-event pipeline's block index"
                        + " (PolicyEnvironment.withKv); the gateway provides it");
            }
            return new KvAwarePolicy(config, kv.index(),
                    kv.tokenizers().tokenizer(config.tokenizer(), config.charsPerToken()), kv.parity(), env.random(),
                    env.fleet() == null ? null : env.fleet().activeBlocks());
        }
    }
}
