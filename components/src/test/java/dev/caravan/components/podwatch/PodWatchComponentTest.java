package dev.caravan.components.podwatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.apache.camel.CamelContext;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PodWatchComponentTest {

    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    @Test
    void resolvesBySchemeAndBindsOptions() {
        PodWatchEndpoint e = camel.getEndpoint("pod-watch:workers?namespace=llm&resyncInterval=90s"
                + "&backoffInitial=250&backoffMax=5s", PodWatchEndpoint.class);
        PodWatchConfiguration c = e.getConfiguration();
        assertThat(c.getName()).isEqualTo("workers");
        assertThat(c.getNamespace()).isEqualTo("llm");
        assertThat(c.getResyncInterval()).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.getBackoffInitial()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.getBackoffMax()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void defaultsWatchEveryNamespaceWithTheDocumentedIntervals() {
        PodWatchConfiguration c = camel.getEndpoint("pod-watch:w", PodWatchEndpoint.class).getConfiguration();
        assertThat(c.getNamespace()).isEmpty();
        assertThat(c.getResyncInterval()).isEqualTo(Duration.ofMillis(PodWatchConfiguration.DEFAULT_RESYNC_INTERVAL_MS));
        assertThat(c.getBackoffInitial()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.getBackoffMax()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void rejectsBackoffCapBelowFirstBackoff() {
        assertThatThrownBy(() -> camel.getEndpoint("pod-watch:w?backoffInitial=2s&backoffMax=1s"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasRootCauseMessage("backoffMax must be >= backoffInitial, was PT1S < PT2S");
    }

    @Test
    void rejectsUnknownOptionAndMissingName() {
        assertThatThrownBy(() -> camel.getEndpoint("pod-watch:w?labelKey=app"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasMessageContaining("Unknown parameters=[{labelKey=app}]");
        assertThatThrownBy(() -> camel.getEndpoint("pod-watch://?namespace=llm"))
                .hasMessageContaining("expected pod-watch:name");
    }

    @Test
    void cannotBeSentTo() {
        PodWatchEndpoint e = camel.getEndpoint("pod-watch:w", PodWatchEndpoint.class);
        assertThatThrownBy(e::createProducer).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("pod-watch endpoints can only be consumed (from), not sent to");
    }
}
