package dev.caravan.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.caravan.sim.SimConfig;

import org.junit.jupiter.api.Test;

class TimeModelTest {

    private final TimeModel defaults = new TimeModel(SimConfig.DEFAULT_PREFILL_TOKENS_PER_SEC,
            SimConfig.DEFAULT_PREFILL_OVERHEAD_MS, SimConfig.DEFAULT_DECODE_MS_PER_TOKEN);

    @Test
    void defaultsPrefillA2048TokenPromptInAbout86Ms() {
        assertThat(defaults.prefillNanos(2048) / 1e6).isCloseTo(86.0, org.assertj.core.data.Offset.offset(0.1));
    }

    @Test
    void prefillIsOverheadPlusUncachedTokensOverRate() {
        TimeModel m = new TimeModel(1000, 2, 5);
        assertThat(m.prefillNanos(0)).isEqualTo(2_000_000);
        assertThat(m.prefillNanos(500)).isEqualTo(502_000_000);
        assertThat(m.decodeStepNanos()).isEqualTo(5_000_000);
    }

    @Test
    void rejectsNonPositiveRatesNamingTheValue() {
        assertThatThrownBy(() -> new TimeModel(0, 1, 1)).hasMessage("prefillTokensPerSec must be > 0, was 0.0");
        assertThatThrownBy(() -> new TimeModel(1, -1, 1)).hasMessage("prefillOverheadMs must be >= 0, was -1.0");
        assertThatThrownBy(() -> new TimeModel(1, 1, 0)).hasMessage("decodeMsPerToken must be > 0, was 0.0");
        assertThatThrownBy(() -> new TimeModel(1, 1, 1).prefillNanos(-1)).hasMessageContaining("was -1");
    }
}
