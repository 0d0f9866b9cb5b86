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
    void unknownNameIsAConfigurationError() {
        assertThatThrownBy(() -> PolicyFactory.create("nearest", Map.of(), PolicyEnvironment.system()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("valid policies are random, round_robin|roundrobin");
    }
}
