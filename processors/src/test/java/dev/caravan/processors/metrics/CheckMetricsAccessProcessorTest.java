package dev.caravan.processors.metrics;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class CheckMetricsAccessProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static Exchange withAuth(String value) {
        return CAMEL.exchange("Authorization", value);
    }

    @Test
    void guardedTakesTheAdminKeyOrTheApiKeyAndNothingElse() {
        CheckMetricsAccessProcessor check = new CheckMetricsAccessProcessor(true, "admin-1", "client-1");
        assertThatCode(() -> check.process(withAuth("Bearer admin-1"))).doesNotThrowAnyException();
        assertThatCode(() -> check.process(withAuth("Bearer client-1"))).doesNotThrowAnyException();
        for (String wrong : new String[] {null, "Bearer other", "admin-1"}) {
            assertThatThrownBy(() -> check.process(withAuth(wrong))).isInstanceOfSatisfying(GatewayException.class,
                    e -> org.assertj.core.api.Assertions.assertThat(e.error()).isEqualTo(GatewayError.UNAUTHORIZED))
                    .hasMessage("missing or invalid API key for /metrics (send Authorization: Bearer <admin or API "
                            + "key>)");
        }
    }

    @Test
    void guardedTakesTheApiKeyAloneWhenThereIsNoAdminKey() {
        CheckMetricsAccessProcessor check = new CheckMetricsAccessProcessor(true, null, "client-1");
        assertThatCode(() -> check.process(withAuth("Bearer client-1"))).doesNotThrowAnyException();
        assertThatThrownBy(() -> check.process(withAuth(null))).isInstanceOf(GatewayException.class);
    }

    @Test
    void guardedIsOpenOnAGatewayWithoutKeys() {
        assertThatCode(() -> new CheckMetricsAccessProcessor(true, null, null).process(withAuth(null)))
                .doesNotThrowAnyException();
    }

    @Test
    void offAnswers404EvenToAValidKey() {
        CheckMetricsAccessProcessor check = new CheckMetricsAccessProcessor(false, "admin-1", null);
        assertThatThrownBy(() -> check.process(withAuth("Bearer admin-1")))
                .isInstanceOfSatisfying(GatewayException.class,
                        e -> org.assertj.core.api.Assertions.assertThat(e.error()).isEqualTo(GatewayError.NOT_FOUND))
                .hasMessage("/metrics is not served on this port (--port-metrics off): scrape the metrics listener "
                        + "(--prometheus-port)");
    }
}
