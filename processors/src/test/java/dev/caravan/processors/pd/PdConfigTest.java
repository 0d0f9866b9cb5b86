package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.ArgsParser;
import dev.caravan.processors.config.GatewayConfig;

class PdConfigTest {

    private static PdConfig fromArgs(String... args) {
        return PdConfig.of(GatewayConfig.of(ArgsParser.parse(args).properties()));
    }

    @Test
    void parsesSGLangsPrefillSyntax() {
        // sglang-gateway.md §9 case 32: ports 9000 / None / None
        PdConfig pd = fromArgs("--pd-disaggregation", "--prefill", "http://p:8080", "9000", "--prefill",
                "http://p2:8080", "none", "--prefill", "http://p3:8080", "--decode", "http://d:8080",
                "--decode", "http://d2:8080");
        assertThat(pd.enabled()).isTrue();
        assertThat(pd.prefill()).containsExactly(new PdConfig.PrefillSpec("http://p:8080", 9000),
                new PdConfig.PrefillSpec("http://p2:8080", null), new PdConfig.PrefillSpec("http://p3:8080", null));
        assertThat(pd.decode()).containsExactly("http://d:8080", "http://d2:8080");
        assertThat(pd.mode()).isEqualTo(PdMode.SGLANG);
    }

    @Test
    void poolPoliciesFallBackToThePolicy() {
        PdConfig pd = fromArgs("--pd-disaggregation", "--prefill-policy", "cache_aware");
        assertThat(pd.prefillPolicyOr("round_robin")).isEqualTo("cache_aware");
        assertThat(pd.decodePolicyOr("round_robin")).isEqualTo("round_robin");
    }

    @Test
    void readsTheMode() {
        assertThat(fromArgs("--pd-disaggregation", "--pd-mode", "vllm").mode()).isEqualTo(PdMode.VLLM);
        assertThatThrownBy(() -> fromArgs("--pd-mode", "mooncake")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--pd-mode (caravan.pd.mode) must be one of sglang, vllm, was 'mooncake'");
    }

    @Test
    void rejectsABadBootstrapPortNamingIt() {
        assertThatThrownBy(() -> fromArgs("--pd-disaggregation", "--prefill", "http://p:8080", "ninety"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--prefill http://p:8080: bootstrap port must be an integer or 'none', was 'ninety'");
        assertThatThrownBy(() -> fromArgs("--pd-disaggregation", "--prefill", "http://p:8080", "70000"))
                .hasMessage("--prefill http://p:8080: bootstrap port must be in [1,65535] or 'none', was '70000'");
        assertThatThrownBy(() -> PdConfig.PrefillSpec.parse(List.of("http://p:1", "1", "2")))
                .hasMessageContaining("takes a URL and an optional bootstrap port");
    }

    @Test
    void workersNeedTheSwitch() {
        assertThatThrownBy(() -> fromArgs("--decode", "http://d:8080"))
                .hasMessage("--prefill and --decode need --pd-disaggregation");
    }

    @Test
    void rejectsABadUrl() {
        assertThatThrownBy(() -> fromArgs("--pd-disaggregation", "--decode", "d:8080"))
                .hasMessageContaining("worker url must look like http://host:port");
    }
}
