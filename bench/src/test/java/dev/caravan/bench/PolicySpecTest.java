package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PolicySpecTest {

    @Test
    void parsesPoliciesWithOptionsAndLabels() {
        List<PolicySpec> specs = PolicySpec.parseList(
                "round_robin, cache_aware:min-prefix-match-chars=4096:balance-abs-threshold=8@best,nginx:hash");
        assertThat(specs).extracting(PolicySpec::label).containsExactly("round_robin", "best", "nginx_hash");
        assertThat(specs.get(1).kind()).isEqualTo(PolicySpec.Kind.CARAVAN);
        assertThat(specs.get(1).options()).containsExactly(Map.entry("min-prefix-match-chars", "4096"),
                Map.entry("balance-abs-threshold", "8"));
        assertThat(specs.get(2).kind()).isEqualTo(PolicySpec.Kind.NGINX);
        assertThat(specs.get(2).policy()).isEqualTo("hash");
    }

    @Test
    void defaultLabelNamesTheOptions() {
        assertThat(PolicySpec.parse("cache_aware:cache-threshold=0.5").label())
                .isEqualTo("cache_aware{cache-threshold=0.5}");
        assertThat(PolicySpec.parse("nginx").label()).isEqualTo("nginx_rr");
    }

    @Test
    void gatewayFlagsThatAreNotPolicyOptionsAreAccepted() {
        assertThat(PolicySpec.parse("power_of_two:load-check-interval=1").options())
                .containsEntry("load-check-interval", "1");
    }

    @Test
    void rejectsUnknownOptionsAndBadValuesNamingThem() {
        assertThatThrownBy(() -> PolicySpec.parse("cache_aware:cache-treshold=0.5"))
                .hasMessageContaining("cache-treshold");
        assertThatThrownBy(() -> PolicySpec.parse("cache_aware:cache-threshold=1.5")).hasMessageContaining("1.5");
        assertThatThrownBy(() -> PolicySpec.parse("fastest")).hasMessageContaining("fastest");
        assertThatThrownBy(() -> PolicySpec.parse("nginx:random")).hasMessageContaining("nginx:random");
        assertThatThrownBy(() -> PolicySpec.parse("cache_aware:oops")).hasMessageContaining("oops");
    }

    @Test
    void rejectsDuplicateLabels() {
        assertThatThrownBy(() -> PolicySpec.parseList("cache_aware,cache_aware"))
                .hasMessageContaining("duplicate labels");
    }
}
