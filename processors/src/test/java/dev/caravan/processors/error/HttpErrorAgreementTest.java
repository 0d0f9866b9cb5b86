package dev.caravan.processors.error;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.caravan.components.http.HttpError;

class HttpErrorAgreementTest {

    @Test
    void everyErrorTheHttpLayerAnswersIsAGatewayErrorOfTheSameStatusAndCode() {
        for (HttpError http : HttpError.values()) {
            GatewayError gateway = GatewayError.valueOf(http.name());
            assertThat(gateway.status()).as(http.name()).isEqualTo(http.status());
            assertThat(gateway.code()).as(http.name()).isEqualTo(http.code());
        }
    }
}
