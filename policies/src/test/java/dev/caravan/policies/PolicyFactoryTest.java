package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class PolicyFactoryTest {

    @Test
    void listsTheEightSglangNamesInRegistrationOrder() {
        assertThat(PolicyFactory.names()).containsExactly("random", "round_robin", "power_of_two", "cache_aware",
                "bucket", "manual", "consistent_hashing", "prefix_hash");
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
            LoadBalancingPolicy p = PolicyFactory.create(name, Map.of(), PolicyEnvironment.seeded(1));
            assertThat(p.name()).isEqualTo(name);
        }
    }

    @Test
    void capabilitiesAreDeclaredByInterfaceNotByName() {
        Map<String, LoadBalancingPolicy> all = new java.util.LinkedHashMap<>();
        PolicyFactory.names().forEach(n -> all.put(n, PolicyFactory.create(n, Map.of(), PolicyEnvironment.system())));
        assertThat(all.entrySet().stream().filter(e -> e.getValue() instanceof Maintainable).map(Map.Entry::getKey))
                .containsExactly("cache_aware", "bucket", "manual");
        assertThat(all.entrySet().stream().filter(e -> e.getValue() instanceof TreeBacked).map(Map.Entry::getKey))
                .containsExactly("cache_aware");
        assertThat(all.entrySet().stream().filter(e -> e.getValue().needsRequestText()).map(Map.Entry::getKey))
                .containsExactly("cache_aware", "bucket");
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
