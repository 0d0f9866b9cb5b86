package dev.caravan.it.request;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A seeded generator of malformed inference requests, one {@link Case} at a time, for the hostile-input fuzz test.
 * Every case names the statuses it may get: all of them 4xx.
 */
final class MalformedRequests {

    /** One request to send and the statuses it may be answered with. */
    record Case(String kind, String path, String contentType, byte[] body, Set<Integer> expected) {
        @Override
        public String toString() {
            String text = new String(body, 0, Math.min(body.length, 120), StandardCharsets.UTF_8);
            return kind + " " + path + " [" + contentType + "] " + body.length + "B " + text.replace('\n', ' ');
        }
    }

    static final int PAYLOAD_LIMIT = 64 * 1024;

    private static final List<String> PATHS = List.of("/v1/chat/completions", "/v1/completions", "/generate",
            "/v1/embeddings");
    private static final String[] VALID = {
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],\"max_tokens\":2}",
        "{\"prompt\":\"hello there\",\"max_tokens\":2}",
        "{\"text\":\"hello there\",\"sampling_params\":{\"max_new_tokens\":2}}",
        "{\"input\":\"hello there\"}"};
    private static final Set<Integer> BAD_JSON = Set.of(400);

    private final SplittableRandom random;

    MalformedRequests(long seed) {
        this.random = new SplittableRandom(seed);
    }

    Case next() {
        int p = random.nextInt(PATHS.size());
        String path = PATHS.get(p);
        String valid = VALID[p];
        return switch (random.nextInt(12)) {
            case 0 -> truncated(path, valid);
            case 1 -> randomBytes(path);
            case 2 -> wrongType(path, p);
            case 3 -> deep(path);
            case 4 -> notAnObject(path);
            case 5 -> wrongContentType(path, valid);
            case 6 -> invalidUtf8(path, valid);
            case 7 -> enormousArray(path, p);
            case 8 -> oversized(path);
            case 9 -> jsonExtensions(path, valid);
            case 10 -> missingInput(path, p);
            default -> emptyArray(path, p);
        };
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Case truncated(String path, String valid) {
        int cut = 1 + random.nextInt(valid.length() - 1);
        return new Case("truncated", path, "application/json", utf8(valid.substring(0, cut)), BAD_JSON);
    }

    private Case randomBytes(String path) {
        byte[] b = new byte[random.nextInt(300)];
        random.nextBytes(b);
        if (b.length > 0 && b[0] == '{') {
            b[0] = '!';
        }
        return new Case("random-bytes", path, "application/json", b, BAD_JSON);
    }

    private Case wrongType(String path, int p) {
        String[] values = {"42", "true", "null", "\"text\"", "{\"a\":1}", "[1,2]", "[[\"x\"]]", "-1.5e300"};
        String v = values[random.nextInt(values.length)];
        String body = switch (p) {
            case 0 -> random.nextBoolean() ? "{\"messages\":" + v + "}" : "{\"messages\":[" + v + "]}";
            case 1 -> "{\"prompt\":" + (v.equals("\"text\"") || v.equals("[1,2]") ? "{}" : v) + "}";
            case 2 -> random.nextBoolean() ? "{\"text\":" + (v.equals("\"text\"") ? "7" : v) + "}"
                    : "{\"input_ids\":[\"a\",\"b\"]}";
            default -> "{\"input\":" + (v.equals("\"text\"") || v.equals("[1,2]") ? "{}" : v) + "}";
        };
        if (random.nextInt(4) == 0) {
            body = random.nextBoolean() ? "{\"model\":" + (random.nextBoolean() ? "5" : "[\"m\"]") + ",\"prompt\":\"x\"}"
                    : "{\"stream\":\"yes\",\"prompt\":\"x\"}";
        }
        return new Case("wrong-type", path, "application/json", utf8(body), BAD_JSON);
    }

    private Case deep(String path) {
        int depth = 129 + random.nextInt(5000);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        String body = "{\"prompt\":" + open.repeat(depth) + "1" + close.repeat(depth) + "}";
        return new Case("deep", path, "application/json", utf8(body), Set.of(400, 413));
    }

    private Case notAnObject(String path) {
        String[] bodies = {"", " ", "null", "[]", "\"hello\"", "123", "true", "[{\"prompt\":\"x\"}]"};
        return new Case("not-an-object", path, "application/json", utf8(bodies[random.nextInt(bodies.length)]),
                BAD_JSON);
    }

    private Case wrongContentType(String path, String valid) {
        String[] types = {null, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
            "application/xml", "application/jsonx", "*/*"};
        return new Case("content-type", path, types[random.nextInt(types.length)], utf8(valid), Set.of(415));
    }

    private Case invalidUtf8(String path, String valid) {
        byte[] b = utf8(valid);
        int quote = valid.indexOf("hello");
        byte[][] bad = {{(byte) 0xC3, (byte) 0x28}, {(byte) 0xFF}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, 0x28, 0x3F}};
        byte[] insert = bad[random.nextInt(bad.length)];
        byte[] out = new byte[b.length + insert.length];
        System.arraycopy(b, 0, out, 0, quote);
        System.arraycopy(insert, 0, out, quote, insert.length);
        System.arraycopy(b, quote, out, quote + insert.length, b.length - quote);
        return new Case("invalid-utf8", path, "application/json", out, BAD_JSON);
    }

    private Case enormousArray(String path, int p) {
        int n = 2000 + random.nextInt(4000);
        StringBuilder sb = new StringBuilder();
        String field = switch (p) {
            case 0 -> "messages";
            case 1 -> "prompt";
            case 2 -> "input_ids";
            default -> "input";
        };
        sb.append("{\"").append(field).append("\":[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(p == 0 ? "{\"content\":1}" : "{}");
        }
        sb.append("]}");
        return new Case("enormous-array", path, "application/json", utf8(sb.toString()), Set.of(400, 413));
    }

    private Case oversized(String path) {
        String body = "{\"prompt\":\"" + "x".repeat(PAYLOAD_LIMIT + random.nextInt(10_000)) + "\"}";
        return new Case("oversized", path, "application/json", utf8(body), Set.of(413));
    }

    private Case jsonExtensions(String path, String valid) {
        String[] bodies = {valid.replace("}", ",}"), "/* c */" + valid, "{\"prompt\":NaN}",
            "{\"prompt\":\"x\" \"max_tokens\":1}", "{'prompt':'x'}", "{\"prompt\":\"x\\q\"}", valid + "}"};
        return new Case("json-extension", path, "application/json", utf8(bodies[random.nextInt(bodies.length)]),
                BAD_JSON);
    }

    /** No input field at all, or only nulls: the gateway must answer (the engines would reject it too). */
    private Case missingInput(String path, int p) {
        String[] generate = {"{\"text\":null,\"input_ids\":null}", "{\"sampling_params\":{\"max_new_tokens\":2}}"};
        String body = p == 2 ? generate[random.nextInt(generate.length)] : "{\"max_tokens\":2,\"model\":\"m\"}";
        return new Case("missing-input", path, "application/json", utf8(body), BAD_JSON);
    }

    /** A genuinely empty input array on every path, at the top level or as a sequence inside a batch. */
    private Case emptyArray(String path, int p) {
        String[] bodies = switch (p) {
            case 0 -> new String[] {"{\"messages\":[]}"};
            case 1 -> new String[] {"{\"prompt\":[]}", "{\"prompt\":[[]]}", "{\"prompt\":[[1,2],[]]}"};
            case 2 -> new String[] {"{\"input_ids\":[]}", "{\"text\":[]}", "{\"input_ids\":[[7],[]]}"};
            default -> new String[] {"{\"input\":[]}", "{\"input\":[[]]}"};
        };
        String body = bodies[random.nextInt(bodies.length)];
        return new Case("empty-array", path, "application/json", utf8(body), BAD_JSON);
    }
}
