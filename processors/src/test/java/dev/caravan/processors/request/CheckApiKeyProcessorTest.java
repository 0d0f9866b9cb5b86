package dev.caravan.processors.request;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;

class CheckApiKeyProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static Exchange withAuth(String value) {
        return CAMEL.exchange("Authorization", value);
    }

    @Test
    void anOpenGatewayLetsEveryRequestPass() {
        assertThatCode(() -> new CheckApiKeyProcessor(null).process(withAuth(null))).doesNotThrowAnyException();
    }

    @Test
    void theRightBearerTokenPasses() {
        assertThatCode(() -> new CheckApiKeyProcessor("k1").process(withAuth("Bearer k1"))).doesNotThrowAnyException();
    }

    @Test
    void aWrongOrMissingTokenIs401() {
        CheckApiKeyProcessor check = new CheckApiKeyProcessor("k1");
        assertThatThrownBy(() -> check.process(withAuth("Bearer k2"))).hasMessageContaining("invalid API key");
        assertThatThrownBy(() -> check.process(withAuth(null))).hasMessageContaining("invalid API key");
    }
}
