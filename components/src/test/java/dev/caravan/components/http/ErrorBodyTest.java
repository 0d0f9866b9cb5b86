package dev.caravan.components.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorBodyTest {

    @Test
    void rendersSglangsShapeWithTheStatusReasonAsType() {
        assertThat(ErrorBody.json(HttpError.NOT_FOUND, "no route for GET /x"))
                .isEqualTo("{\"error\":{\"type\":\"Not Found\",\"code\":\"not_found\","
                        + "\"message\":\"no route for GET /x\"}}");
    }

    @Test
    void escapesQuotesBackslashesAndControlCharactersInTheMessage() {
        assertThat(ErrorBody.json(400, "invalid_request", "bad \"x\\y\"\n\t\u0001"))
                .isEqualTo("{\"error\":{\"type\":\"Bad Request\",\"code\":\"invalid_request\","
                        + "\"message\":\"bad \\\"x\\\\y\\\"\\n\\t\\u0001\"}}");
    }

    @Test
    void aMissingMessageIsEmpty() {
        assertThat(ErrorBody.json(503, "no_available_workers", null)).isEqualTo(
                "{\"error\":{\"type\":\"Service Unavailable\",\"code\":\"no_available_workers\",\"message\":\"\"}}");
    }
}
