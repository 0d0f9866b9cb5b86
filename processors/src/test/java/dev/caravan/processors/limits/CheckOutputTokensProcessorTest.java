package dev.caravan.processors.limits;

import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class CheckOutputTokensProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static Exchange request(Map<String, Object> json) {
        Exchange exchange = CAMEL.exchange();
        REQUEST_JSON.set(exchange, json);
        return exchange;
    }

    private static GatewayException rejection(int limit, Map<String, Object> json) {
        return catchThrowableOfType(GatewayException.class,
                () -> new CheckOutputTokensProcessor(limit).process(request(json)));
    }

    @Test
    void eachApisFieldAboveTheLimitIs400NamingTheFieldTheLimitAndTheValue() {
        assertThat(rejection(100, Map.of("max_tokens", 101)).getMessage())
                .isEqualTo("max_tokens must be at most 100 on this gateway, was 101");
        assertThat(rejection(100, Map.of("max_completion_tokens", 5000L)).getMessage())
                .isEqualTo("max_completion_tokens must be at most 100 on this gateway, was 5000");
        assertThat(rejection(100, Map.of("max_output_tokens", 100.5)).getMessage())
                .isEqualTo("max_output_tokens must be at most 100 on this gateway, was 100.5");
        GatewayException generate = rejection(100, Map.of("sampling_params", Map.of("max_new_tokens", 4096)));
        assertThat(generate.getMessage())
                .isEqualTo("sampling_params.max_new_tokens must be at most 100 on this gateway, was 4096");
        assertThat(generate.error()).isEqualTo(GatewayError.INVALID_REQUEST);
        assertThat(generate.error().status()).isEqualTo(400);
    }

    @Test
    void aRequestAtTheLimitOrSettingNoneOfTheFieldsPasses() {
        CheckOutputTokensProcessor check = new CheckOutputTokensProcessor(100);
        assertThatCode(() -> check.process(request(Map.of("max_tokens", 100, "max_completion_tokens", 1))))
                .doesNotThrowAnyException();
        assertThatCode(() -> check.process(request(Map.of("model", "m", "sampling_params", Map.of("temperature", 0)))))
                .doesNotThrowAnyException();
    }

    @Test
    void aValueThatIsNotANumberIsLeftToTheEngine() {
        assertThatCode(() -> new CheckOutputTokensProcessor(100).process(request(Map.of("max_tokens", "lots"))))
                .doesNotThrowAnyException();
    }

    @Test
    void withoutALimitEveryRequestPasses() {
        assertThatCode(() -> new CheckOutputTokensProcessor(CheckOutputTokensProcessor.NO_LIMIT)
                .process(request(Map.of("max_tokens", Integer.MAX_VALUE)))).doesNotThrowAnyException();
    }
}
