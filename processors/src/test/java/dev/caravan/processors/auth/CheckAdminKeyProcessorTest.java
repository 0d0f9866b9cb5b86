package dev.caravan.processors.auth;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;

class CheckAdminKeyProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static Exchange withAuth(String value) {
        return CAMEL.exchange("Authorization", value);
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
