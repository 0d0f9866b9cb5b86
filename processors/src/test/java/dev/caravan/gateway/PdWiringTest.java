package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.pd.PdConfig;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.pd.PdMode;

/** SGLang's P/D command lines become the P/D config. */
class PdWiringTest {

    @TempDir
    Path dir;

    private PdConfig fromArgs(String... args) {
        return PdFeature.pdConfig(ConfigResolver.resolve(args, Map.of(), dir).config());
    }

    @Test
    void parsesSGLangsPrefillSyntax() {
        // SGLang's test_parse_prefill_urls_valid: a port, "none" and no port give 9000 / none / none
        // (docs/design/upstream.md, "SGLang: --prefill URL [PORT|none]")
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
    void defaultsAreOff() {
        assertThat(PdFeature.pdConfig(GatewayConfig.defaults())).isEqualTo(PdConfig.disabled());
    }

    @Test
    void readsThePoolPoliciesAndTheMode() {
        PdConfig pd = fromArgs("--pd-disaggregation", "--prefill-policy", "CacheAware", "--pd-mode", "VLLM");
        assertThat(pd.prefillPolicyOr("round_robin")).isEqualTo("cache_aware");
        assertThat(pd.decodePolicyOr("round_robin")).isEqualTo("round_robin");
        assertThat(pd.mode()).isEqualTo(PdMode.VLLM);
    }

    @Test
    void badValuesNameTheFlag() {
        assertThatThrownBy(() -> fromArgs("--pd-mode", "mooncake"))
                .hasMessage("--pd-mode (caravan.pd.mode) must be one of sglang, vllm, was 'mooncake'");
        assertThatThrownBy(() -> fromArgs("--pd-disaggregation", "--prefill", "http://p:8080", "ninety"))
                .hasMessage("--prefill http://p:8080: bootstrap port must be an integer or 'none', was 'ninety'");
        assertThatThrownBy(() -> fromArgs("--decode", "http://d:8080"))
                .hasMessage("--prefill and --decode need --pd-disaggregation");
    }
}
