package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class LabelSelectorTest {

    @Test
    void matchesOnlyWhenEveryPairIsPresent() {
        LabelSelector s = LabelSelector.parse(List.of("app=vllm", "tier=gpu"));
        assertThat(s.matches(Map.of("app", "vllm", "tier", "gpu", "extra", "x"))).isTrue();
        assertThat(s.matches(Map.of("app", "vllm"))).isFalse();
        assertThat(s.matches(Map.of("app", "vllm", "tier", "cpu"))).isFalse();
        assertThat(s.matches(null)).isFalse();
    }

    @Test
    void emptySelectorMatchesNothing() {
        assertThat(LabelSelector.NONE.matches(Map.of("app", "vllm"))).isFalse();
        assertThat(LabelSelector.parse("").isEmpty()).isTrue();
    }

    @Test
    void parsesThePropertyFormAndPrintsItSorted() {
        LabelSelector s = LabelSelector.parse("tier=gpu, app=vllm");
        assertThat(s.pairs()).isEqualTo(Map.of("app", "vllm", "tier", "gpu"));
        assertThat(s).hasToString("app=vllm,tier=gpu");
    }

    @Test
    void acceptsEmptyValues() {
        assertThat(LabelSelector.parse("canary=").matches(Map.of("canary", ""))).isTrue();
    }

    @Test
    void rejectsItemsWithoutKeyOrEquals() {
        assertThatThrownBy(() -> LabelSelector.parse(List.of("app")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("selector items must look like key=value, was 'app'");
        assertThatThrownBy(() -> LabelSelector.parse(List.of("=vllm")))
                .hasMessage("selector items must look like key=value, was '=vllm'");
    }
}
