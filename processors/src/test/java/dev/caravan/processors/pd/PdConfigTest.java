package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class PdConfigTest {

    @Test
    void parsesSGLangsPrefillOccurrences() {
        // SGLang's test_parse_prefill_urls_valid: a port, "none" and no port give 9000 / none / none
        // (docs/design/upstream.md, "SGLang: --prefill URL [PORT|none]")
        assertThat(PdConfig.PrefillSpec.parse(List.of("http://p:8080", "9000")))
                .isEqualTo(new PdConfig.PrefillSpec("http://p:8080", 9000));
        assertThat(PdConfig.PrefillSpec.parse(List.of("http://p2:8080", "None")))
                .isEqualTo(new PdConfig.PrefillSpec("http://p2:8080", null));
        assertThat(PdConfig.PrefillSpec.parse(List.of("http://p3:8080")))
                .isEqualTo(new PdConfig.PrefillSpec("http://p3:8080", null));
    }

    @Test
    void rejectsABadBootstrapPortNamingIt() {
        assertThatThrownBy(() -> PdConfig.PrefillSpec.parse(List.of("http://p:8080", "ninety")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--prefill http://p:8080: bootstrap port must be an integer or 'none', was 'ninety'");
        assertThatThrownBy(() -> PdConfig.PrefillSpec.parse(List.of("http://p:8080", "70000")))
                .hasMessage("--prefill http://p:8080: bootstrap port must be in [1,65535] or 'none', was '70000'");
        assertThatThrownBy(() -> PdConfig.PrefillSpec.parse(List.of("http://p:1", "1", "2")))
                .hasMessageContaining("takes a URL and an optional bootstrap port");
    }

    @Test
    void poolPoliciesFallBackToThePolicy() {
        PdConfig pd = new PdConfig(true, PdMode.SGLANG, List.of(), List.of(), "cache_aware", " ");
        assertThat(pd.prefillPolicyOr("round_robin")).isEqualTo("cache_aware");
        assertThat(pd.decodePolicyOr("round_robin")).isEqualTo("round_robin");
    }

    @Test
    void workersNeedTheSwitch() {
        assertThatThrownBy(() -> new PdConfig(false, PdMode.SGLANG, List.of(), List.of("http://d:8080"), null, null))
                .hasMessage("--prefill and --decode need --pd-disaggregation");
        assertThat(PdConfig.disabled().enabled()).isFalse();
    }

    @Test
    void rejectsABadUrl() {
        assertThatThrownBy(() -> new PdConfig(true, PdMode.SGLANG, List.of(), List.of("d:8080"), null, null))
                .hasMessageContaining("worker url 'd:8080' must start with http:// or https://");
    }

    @Test
    void parsesTheModeWithoutRegardToCase() {
        assertThat(PdMode.parse("VLLM")).isEqualTo(PdMode.VLLM);
        assertThatThrownBy(() -> PdMode.parse("mooncake"))
                .hasMessage("P/D mode must be sglang or vllm, was 'mooncake'");
    }
}
