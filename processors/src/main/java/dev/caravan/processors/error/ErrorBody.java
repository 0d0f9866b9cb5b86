package dev.caravan.processors.error;

import java.util.LinkedHashMap;
import java.util.Map;

import io.netty.handler.codec.http.HttpResponseStatus;

import dev.caravan.policies.text.CompactJson;

/**
 * Renders SGLang's error shape: {@code {"error":{"type":"<reason phrase>","code":"<code>","message":"<text>"}}}, the
 * body of every error the gateway answers itself. The header {@link #ERROR_CODE_HEADER} repeats the code.
 */
public final class ErrorBody {

    /** Response header carrying the error code, so clients and logs need not parse the body. */
    public static final String ERROR_CODE_HEADER = "X-Caravan-Error-Code";
    public static final String CONTENT_TYPE = "application/json";

    private ErrorBody() {
    }

    public static String json(GatewayError error, String message) {
        return json(error.status(), error.code(), message);
    }

    public static String json(int status, String code, String message) {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("type", HttpResponseStatus.valueOf(status).reasonPhrase());
        inner.put("code", code);
        inner.put("message", message == null ? "" : message);
        return CompactJson.write(Map.of("error", inner));
    }
}
