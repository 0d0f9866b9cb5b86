package dev.caravan.processors.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BearerKeyTest {

    private final BearerKey key = new BearerKey("sk-secret-123");

    @Test
    void acceptsTheKeyWithAnyCaseOfTheScheme() {
        assertThat(key.matches("Bearer sk-secret-123")).isTrue();
        assertThat(key.matches("bearer sk-secret-123")).isTrue();
        assertThat(key.matches("  BEARER   sk-secret-123  ")).isTrue();
    }

    @Test
    void rejectsOtherKeysPrefixesSchemesAndNothing() {
        assertThat(key.matches("Bearer sk-secret-12")).isFalse();
        assertThat(key.matches("Bearer sk-secret-1234")).isFalse();
        assertThat(key.matches("Basic sk-secret-123")).isFalse();
        assertThat(key.matches("sk-secret-123")).isFalse();
        assertThat(key.matches("Bearer ")).isFalse();
        assertThat(key.matches("")).isFalse();
        assertThat(key.matches(null)).isFalse();
    }

    @Test
    void neverShowsTheKey() {
        assertThat(key.toString()).doesNotContain("sk-secret-123");
    }

    @Test
    void rejectsABlankKey() {
        assertThatThrownBy(() -> new BearerKey(" ")).hasMessage("API key must not be blank");
    }
}
