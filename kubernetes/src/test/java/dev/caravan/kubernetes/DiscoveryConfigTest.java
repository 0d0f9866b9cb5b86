package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;

class DiscoveryConfigTest {

    private static final LabelSelector APP = new LabelSelector(Map.of("app", "vllm"));

    private static DiscoveryConfig config(LabelSelector regular, LabelSelector prefill, LabelSelector decode, int port,
                                          String bootstrapAnnotation, Duration resync) {
        return new DiscoveryConfig(regular, prefill, decode, port, null, bootstrapAnnotation,
                DiscoveryFeature.DEFAULT_MODEL_ANNOTATION, DiscoveryFeature.DEFAULT_KV_EVENTS_ANNOTATION,
                DiscoveryFeature.DEFAULT_KV_REPLAY_ANNOTATION, resync);
    }

    @Test
    void defaultsFollowSglang() {
        DiscoveryConfig c = DiscoveryConfig.regular(Map.of("app", "vllm"));
        assertThat(c.port()).isEqualTo(80);
        assertThat(c.bootstrapPortAnnotation()).isEqualTo("sglang.ai/bootstrap-port");
        assertThat(c.allNamespaces()).isTrue();
        assertThat(c.resyncInterval()).isEqualTo(Duration.ofSeconds(120));
        assertThat(c.prefillDecodeMode()).isFalse();
    }

    @Test
    void rejectsMissingSelector() {
        assertThatThrownBy(() -> config(null, null, null, 80, "a/b", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("service discovery needs --selector");
    }

    @Test
    void rejectsRegularAndPrefillDecodeSelectorsTogether() {
        assertThatThrownBy(() -> config(APP, APP, null, 80, "a/b", Duration.ZERO))
                .hasMessageContaining("not both; selector was 'app=vllm'");
    }

    @Test
    void rejectsPortOutsideRange() {
        assertThatThrownBy(() -> config(APP, null, null, 0, "a/b", Duration.ZERO))
                .hasMessage("service discovery port must be in [1,65535], was 0");
        assertThatThrownBy(() -> config(APP, null, null, 65536, "a/b", Duration.ZERO))
                .hasMessage("service discovery port must be in [1,65535], was 65536");
    }

    @Test
    void rejectsBlankAnnotationAndNegativeResync() {
        assertThatThrownBy(() -> config(APP, null, null, 80, " ", Duration.ZERO))
                .hasMessage("bootstrap port annotation must be a Kubernetes annotation key without spaces, was ' '");
        assertThatThrownBy(() -> config(APP, null, null, 80, "a/b", Duration.ofSeconds(-1)))
                .hasMessage("resync interval must be >= 0, was PT-1S");
    }

    @Test
    void everyValueTheFlagRowsAcceptBuildsTheConfig() {
        GatewayConfig base = GatewayConfig.defaults().with(DiscoveryFeature.SELECTOR, "app=vllm");
        for (String port : List.of("1", "65535")) {
            assertThat(DiscoveryFeature.discoveryConfig(base.with(DiscoveryFeature.SERVICE_DISCOVERY_PORT, port)).port())
                    .isEqualTo(Integer.parseInt(port));
        }
        for (long resync : List.of(0L, FlagRows.MAX_SECONDS)) {
            assertThat(DiscoveryFeature.discoveryConfig(base.with(DiscoveryFeature.DISCOVERY_RESYNC_INTERVAL,
                    Long.toString(resync))).resyncInterval()).isEqualTo(Duration.ofSeconds(resync));
        }
        assertThat(DiscoveryFeature.discoveryConfig(base.with(DiscoveryFeature.MODEL_ANNOTATION, "m")).modelAnnotation())
                .isEqualTo("m");
    }

    @Test
    void prefillSelectorWinsWhenAPodMatchesBoth() {
        DiscoveryConfig c = DiscoveryConfig.prefillDecode(Map.of("app", "vllm"), Map.of("app", "vllm"));
        assertThat(c.roleFor(Map.of("app", "vllm"))).contains(WorkerRole.PREFILL);
    }

    @Test
    void decodeOnlyFleetNeverMatchesPrefill() {
        DiscoveryConfig c = DiscoveryConfig.prefillDecode(Map.of(), Map.of("role", "decode"));
        assertThat(c.prefillDecodeMode()).isTrue();
        assertThat(c.roleFor(Map.of("role", "decode"))).contains(WorkerRole.DECODE);
        assertThat(c.roleFor(Map.of("role", "prefill"))).isEmpty();
    }
}
