package dev.caravan.processors.error;

import static dev.caravan.processors.CaravanExchangeProperties.ERROR_CODE;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_HEADERS;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.components.http.ErrorBody;
import dev.caravan.processors.StartedCamel;

class MapErrorProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static Exchange failedWith(Throwable t) {
        Exchange e = CAMEL.exchange();
        e.setProperty(Exchange.EXCEPTION_CAUGHT, t);
        return e;
    }

    @Test
    void aGatewayExceptionKeepsItsStatusCodeAndMessage() {
        Exchange e = failedWith(GatewayError.NO_AVAILABLE_WORKERS.exception("No available workers"));
        new MapErrorProcessor().process(e);

        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(503);
        assertThat(e.getMessage().getHeader(ErrorBody.ERROR_CODE_HEADER)).isEqualTo("no_available_workers");
        assertThat(e.getMessage().getHeader(Exchange.CONTENT_TYPE)).isEqualTo("application/json");
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("{\"error\":{\"type\":\"Service Unavailable\","
                + "\"code\":\"no_available_workers\",\"message\":\"No available workers\"}}");
        assertThat(RESPONSE_STATUS.get(e)).isEqualTo(503);
    }

    @Test
    void anErrorsOwnHeadersAreAnsweredWithIt() {
        Exchange e = failedWith(GatewayError.TENANT_RATE_LIMITED.exception("slow down")
                .withHeaders(java.util.Map.of("Retry-After", "30")));
        new MapErrorProcessor().process(e);

        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(e.getMessage().getHeader("Retry-After")).isEqualTo("30");
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("{\"error\":{\"type\":\"Too Many Requests\","
                + "\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}");
    }

    @Test
    void anythingElseIsA500WithoutDetails() {
        Exchange e = failedWith(new NullPointerException("secret internals"));
        new MapErrorProcessor().process(e);

        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(500);
        assertThat(e.getMessage().getBody(String.class)).contains("internal_error").doesNotContain("secret")
                .doesNotContain("NullPointerException");
    }

    @Test
    void aCommittedStreamIsLeftAlone() {
        Exchange e = failedWith(GatewayError.UPSTREAM_FAILED.exception("late failure"));
        RESPONSE_COMMITTED.set(e, true);
        e.getMessage().setBody("untouched");
        new MapErrorProcessor().process(e);
        assertThat(e.getMessage().getBody()).isEqualTo("untouched");
        assertThat(ERROR_CODE.get(e)).isEqualTo("upstream_error");
    }

    @Test
    void theRequestsResponseHeadersGoOnEveryErrorAndTheErrorsOwnWin() {
        Exchange e = failedWith(GatewayError.TENANT_RATE_LIMITED.exception("slow down")
                .withHeaders(java.util.Map.of("x-ratelimit-remaining-requests", "0")));
        RESPONSE_HEADERS.set(e, java.util.Map.of("x-ratelimit-limit-requests", "5",
                "x-ratelimit-remaining-requests", "3"));
        Exchange other = failedWith(GatewayError.NO_AVAILABLE_WORKERS.exception("none"));
        RESPONSE_HEADERS.set(other, java.util.Map.of("x-ratelimit-limit-requests", "5"));

        new MapErrorProcessor().process(e);
        new MapErrorProcessor().process(other);

        assertThat(e.getMessage().getHeader("x-ratelimit-limit-requests")).isEqualTo("5");
        assertThat(e.getMessage().getHeader("x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(other.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(503);
        assertThat(other.getMessage().getHeader("x-ratelimit-limit-requests")).isEqualTo("5");
    }
}
