package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;
import dev.caravan.policies.kv.KvGroundTruth;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.policies.text.TokenizerSource;

class PolicyFactoryTest {

    @Test
    void listsTheSglangNamesInRegistrationOrderThenKvAware() {
        assertThat(PolicyFactory.names()).containsExactly("random", "round_robin", "power_of_two", "cache_aware",
                "bucket", "manual", "consistent_hashing", "prefix_hash", "bounded_consistent_hashing", "kv_aware");
    }

    private static PolicyEnvironment withKv(PolicyEnvironment env) {
        return env.withKv(new KvGroundTruth(new KvBlockIndex(), null, TokenizerSource.pseudoOnly()));
    }

    @Test
    void buildsPoliciesThatReportTheirCanonicalName() {
        assertThat(PolicyFactory.create("RoundRobin", Map.of(), PolicyEnvironment.system()).name())
                .isEqualTo("round_robin");
        assertThat(PolicyFactory.create(RandomConfig.defaults(), PolicyEnvironment.seeded(1)).name())
                .isEqualTo("random");
    }

    @Test
    void everyNameBuildsAPolicyOfThatName() {
        for (String name : PolicyFactory.names()) {
            LoadBalancingPolicy p = PolicyFactory.create(name, Map.of(), withKv(PolicyEnvironment.seeded(1)));
            assertThat(p.name()).isEqualTo(name);
        }
    }

    @Test
    void capabilitiesAreDeclaredByInterfaceNotByName() {
        Map<String, LoadBalancingPolicy> all = new java.util.LinkedHashMap<>();
        PolicyFactory.names().forEach(n -> all.put(n, PolicyFactory.create(n, Map.of(),
                withKv(PolicyEnvironment.system()))));
        assertThat(all.entrySet().stream().filter(e -> e.getValue() instanceof Maintainable).map(Map.Entry::getKey))
                .containsExactly("cache_aware", "bucket", "manual");
        assertThat(all.entrySet().stream().filter(e -> e.getValue() instanceof TreeBacked).map(Map.Entry::getKey))
                .containsExactly("cache_aware");
        assertThat(all.entrySet().stream().filter(e -> e.getValue().needsRequestText()).map(Map.Entry::getKey))
                .containsExactly("cache_aware", "bucket", "kv_aware");
    }

    @Test
    void kvAwareSharesTheEnvironmentsIndexAndNeedsIt() {
        assertThatThrownBy(() -> PolicyFactory.create("kv_aware", Map.of(), PolicyEnvironment.seeded(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("PolicyEnvironment.withKv");
        assertThatThrownBy(() -> PolicyFactory.create("kv_aware", Map.of("kv-tokenizer", "/no/such/tokenizer.json"),
                withKv(PolicyEnvironment.seeded(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/no/such/tokenizer.json");

        KvBlockIndex index = new KvBlockIndex();
        PolicyEnvironment env = PolicyEnvironment.seeded(1)
                .withKv(new KvGroundTruth(index, null, TokenizerSource.pseudoOnly()));
        LoadBalancingPolicy p = PolicyFactory.create("kv_aware", Map.of("kv-block-size", "4"), env);
        Worker a = Worker.builder("http://a:1").id("a").build();
        Worker b = Worker.builder("http://b:1").id("b").build();
        String prompt = "0123456789abcdef0123456789abcdef";   // 8 pseudo tokens = 2 blocks of 4
        index.apply("b", 0, KvEvent.BlockStored.of(new long[] {11, 12}, null, new PseudoTokenizer().encode(prompt), 4));
        Decision d = p.select(java.util.List.of(a, b), SelectionContext.ofText(prompt));
        assertThat(d.worker()).isSameAs(b);
        assertThat(d.label()).isEqualTo("kv_aware:kv_hit");
    }

    @Test
    void optionsReachThePolicy() {
        Maintainable m = (Maintainable) PolicyFactory.create("cache_aware", Map.of("eviction-interval", "0"),
                PolicyEnvironment.system());
        assertThat(m.maintenanceInterval()).isZero();
        Maintainable b = (Maintainable) PolicyFactory.create("bucket", Map.of("bucket-adjust-interval", "9"),
                PolicyEnvironment.system());
        assertThat(b.maintenanceInterval()).hasSeconds(9);
    }

    @Test
    void unknownNameIsAConfigurationError() {
        assertThatThrownBy(() -> PolicyFactory.create("nearest", Map.of(), PolicyEnvironment.system()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("valid policies are random, round_robin|roundrobin");
    }
}
