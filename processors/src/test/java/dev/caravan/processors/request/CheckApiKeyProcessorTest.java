package dev.caravan.processors.request;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class CheckApiKeyProcessorTest {

    private static final CamelContext CAMEL = new DefaultCamelContext();

    static {
        CAMEL.start(); // a started context gives messages Camel's case-insensitive headers
    }

    @AfterAll
    static void stop() throws Exception {
        CAMEL.close();
    }

    private static Exchange withAuth(String value) {
        Exchange e = new DefaultExchange(CAMEL);
        if (value != null) {
            e.getIn().setHeader("Authorization", value);
        }
        return e;
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
