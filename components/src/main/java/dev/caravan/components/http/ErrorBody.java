package dev.caravan.components.http;

import io.netty.handler.codec.http.HttpResponseStatus;

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

    public static String json(HttpError error, String message) {
        return json(error.status(), error.code(), message);
    }

    /** The body for {@code status} (its reason phrase as the type), {@code code} and {@code message} (null: empty). */
    public static String json(int status, String code, String message) {
        StringBuilder sb = new StringBuilder(64 + (message == null ? 0 : message.length()));
        sb.append("{\"error\":{\"type\":");
        quote(HttpResponseStatus.valueOf(status).reasonPhrase(), sb);
        sb.append(",\"code\":");
        quote(code, sb);
        sb.append(",\"message\":");
        quote(message == null ? "" : message, sb);
        return sb.append("}}").toString();
    }

    /** A JSON string: quotes, backslashes and control characters escaped, everything else as it is. */
    private static void quote(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
