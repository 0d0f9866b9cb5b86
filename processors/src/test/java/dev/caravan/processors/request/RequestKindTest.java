package dev.caravan.processors.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequestKindTest {

    @Test
    void theNameARouteSetsParsesToItsKind() {
        assertThat(RequestKind.parse("chat")).isEqualTo(RequestKind.CHAT);
        assertThat(RequestKind.parse(new String("completions"))).isEqualTo(RequestKind.COMPLETIONS);
    }

    @Test
    void aNameInAnotherCaseOrWithSpacesAroundItParsesToo() {
        assertThat(RequestKind.parse("  Chat ")).isEqualTo(RequestKind.CHAT);
        assertThat(RequestKind.parse("COMPLETIONS")).isEqualTo(RequestKind.COMPLETIONS);
    }

    @Test
    void aKindParsesToItself() {
        assertThat(RequestKind.parse(RequestKind.COMPLETIONS)).isSameAs(RequestKind.COMPLETIONS);
    }

    @Test
    void anUnknownOrMissingKindIsAnErrorNamingTheValue() {
        assertThatThrownBy(() -> RequestKind.parse("chats")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was 'chats'");
        assertThatThrownBy(() -> RequestKind.parse(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was 'null'");
    }
}
