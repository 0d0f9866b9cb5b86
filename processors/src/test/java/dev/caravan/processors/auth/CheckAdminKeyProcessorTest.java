package dev.caravan.processors.auth;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class CheckAdminKeyProcessorTest {

    private static final CamelContext CAMEL = new DefaultCamelContext();

    static {
        CAMEL.start();
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
    void theAdminKeyIsRequiredWhenSetAndTheClientKeyDoesNotOpenTheAdminApi() {
        CheckAdminKeyProcessor check = new CheckAdminKeyProcessor("admin-1", "client-1");
        assertThatCode(() -> check.process(withAuth("Bearer admin-1"))).doesNotThrowAnyException();
        assertThatThrownBy(() -> check.process(withAuth("Bearer client-1"))).hasMessageContaining("admin API key");
        assertThatThrownBy(() -> check.process(withAuth(null))).hasMessageContaining("admin API key");
    }

    @Test
    void withoutAnAdminKeyTheClientKeyGuardsTheAdminApi() {
        CheckAdminKeyProcessor check = new CheckAdminKeyProcessor(null, "client-1");
        assertThatCode(() -> check.process(withAuth("Bearer client-1"))).doesNotThrowAnyException();
        assertThatThrownBy(() -> check.process(withAuth("Bearer other"))).hasMessageContaining("invalid");
    }

    @Test
    void withNoKeyAtAllTheAdminApiIsOpen() {
        assertThatCode(() -> new CheckAdminKeyProcessor(null, null).process(withAuth(null))).doesNotThrowAnyException();
    }
}
