package dev.caravan.processors.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonUsageReaderTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Bodies engines send, and odd ones: what a parsed tree says is what the streaming reader must say. */
    private static final List<String> BODIES = List.of(
            "{\"id\":\"cmpl-1\",\"choices\":[{\"index\":0,\"text\":\" kit\",\"logprobs\":null}],"
                    + "\"usage\":{\"prompt_tokens\":2,\"total_tokens\":3,\"completion_tokens\":1,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":0}}}",
            "{\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}",
            "{\"text\":\"a\",\"meta_info\":{\"prompt_tokens\":10,\"cached_tokens\":4,\"completion_tokens\":2}}",
            "[{\"meta_info\":{\"prompt_tokens\":3,\"cached_tokens\":1}},{\"meta_info\":{\"prompt_tokens\":4}},"
                    + "7,[{\"usage\":{\"prompt_tokens\":100}}],{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}]",
            "{\"meta_info\":{\"prompt_tokens\":1},\"usage\":{\"prompt_tokens\":9}}",
            "{\"usage\":{\"prompt_tokens\":9},\"usage\":3,\"meta_info\":{\"prompt_tokens\":4}}",
            "{\"usage\":{\"prompt_tokens\":9,\"prompt_tokens\":11,\"prompt_tokens_details\":{\"cached_tokens\":5},"
                    + "\"prompt_tokens_details\":7}}",
            "{\"usage\":{\"prompt_tokens\":\"12\",\"completion_tokens\":2.9,\"prompt_tokens_details\":"
                    + "{\"cached_tokens\":true}}}",
            "{\"usage\":{\"prompt_tokens\":123456789012345678901234567890,\"completion_tokens\":{\"n\":1}}}",
            "{\"usage\":{\"prompt_tokens\":9223372036854775807,\"completion_tokens\":[1,2]}}",
            "{\"choices\":[{\"usage\":{\"prompt_tokens\":1}}],\"x\":{\"usage\":{\"prompt_tokens\":2}}}",
            "{\"usage\":{\"completion_tokens\":3}}",
            "{\"usage\":{\"completion_tokens\":3},\"note\":\"prompt_tokens\"}",
            "{\"usage\":null,\"meta_info\":{\"prompt_tokens\":8,\"cached_tokens\":null}}",
            "{\"ok\":true}",
            "\"prompt_tokens\"",
            "42",
            "[]",
            "{}",
            "{\"usage\":{\"prompt_tokens\":4}} trailing",
            "   {\"usage\" : { \"prompt_tokens\" : 4 } }  ",
            "{\"usage\":{\"prompt_tokens\":4}",
            "not json",
            // malformed inside a string value that is never the marker: still malformed
            "{\"x\":\"bad \\q escape\",\"usage\":{\"prompt_tokens\":4}}",
            "{\"x\":\"raw \u0001 control\",\"usage\":{\"prompt_tokens\":4}}",
            "{\"x\":\"escaped \\u00e9 \\\"quote\\\" \u00e9t\u00e9\",\"usage\":{\"prompt_tokens\":4}}",
            // a closing bracket right after a separator: malformed outside a string, text inside one
            "{\"usage\":{\"prompt_tokens\":4,}}",
            "{\"usage\":{\"prompt_tokens\":4, \"completion_tokens\": }}",
            "[{\"meta_info\":{\"prompt_tokens\":4}}, ]",
            "{\"x\":\"a, } b: ]\",\"usage\":{\"prompt_tokens\":4}}",
            "");

    /** The reference: the tree the previous implementation built, read the same way. */
    private static Usage fromTree(String body) {
        if (!body.contains("\"prompt_tokens\"")) {
            return Usage.NONE;
        }
        try {
            JsonNode root = MAPPER.readTree(body.getBytes(StandardCharsets.UTF_8));
            if (root == null) {
                return Usage.NONE;
            }
            if (root.isArray()) {
                Usage sum = Usage.NONE;
                for (JsonNode element : root) {
                    sum = sum.plus(fromNode(element));
                }
                return sum;
            }
            return fromNode(root);
        } catch (IOException e) {
            return Usage.NONE;
        }
    }

    private static Usage fromNode(JsonNode node) {
        JsonNode usage = node.get("usage");
        if (usage != null && usage.isObject()) {
            JsonNode details = usage.get("prompt_tokens_details");
            return new Usage(longOf(usage.get("prompt_tokens")),
                    details == null ? -1 : longOf(details.get("cached_tokens")), longOf(usage.get("completion_tokens")));
        }
        JsonNode meta = node.get("meta_info");
        if (meta != null && meta.isObject()) {
            return new Usage(longOf(meta.get("prompt_tokens")), longOf(meta.get("cached_tokens")),
                    longOf(meta.get("completion_tokens")));
        }
        return Usage.NONE;
    }

    private static long longOf(JsonNode n) {
        return n != null && n.canConvertToLong() ? n.asLong() : -1;
    }

    private static Usage streamed(byte[] bytes, int... cuts) {
        JsonUsageReader reader = new JsonUsageReader();
        int from = 0;
        for (int cut : cuts) {
            reader.feed(bytes, from, cut - from);
            from = cut;
        }
        reader.feed(bytes, from, bytes.length - from);
        return reader.finish();
    }

    @Test
    void readsWhatTheParsedTreeSaysWhereverTheBodyIsCut() {
        for (String body : BODIES) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            Usage expected = fromTree(body);
            assertThat(streamed(bytes)).as("whole: %s", body).isEqualTo(expected);
            for (int cut = 0; cut <= bytes.length; cut++) {
                assertThat(streamed(bytes, cut)).as("cut at %d: %s", cut, body).isEqualTo(expected);
            }
            int[] everyByte = new int[bytes.length];
            for (int i = 0; i < bytes.length; i++) {
                everyByte[i] = i;
            }
            assertThat(streamed(bytes, everyByte)).as("byte by byte: %s", body).isEqualTo(expected);
        }
    }

    @Test
    void readingAWholeValueGivesWhatTheTreeSays() {
        for (String body : BODIES) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            assertThat(JsonUsageReader.read(bytes, 0, bytes.length)).as("whole: %s", body).isEqualTo(fromTree(body));
            byte[] padded = ("[{" + body + "}]").getBytes(StandardCharsets.UTF_8); // only the value's own bytes count
            assertThat(JsonUsageReader.read(padded, 2, bytes.length)).as("inside a larger array: %s", body)
                    .isEqualTo(fromTree(body));
        }
    }

    @Test
    void aFieldWithoutItsValueMakesTheBodyMalformedWhereverItIsCut() {
        byte[] bytes = ("[{\"text\": \"a\", \"meta_info\": {\"prompt_tokens\": 10, \"cached_tokens\": 4}}, "
                + "{\"text\": \"b\", \"meta_info\": {\"prompt_tokens\": 2, \"cached_tokens\": }}]")
                .getBytes(StandardCharsets.UTF_8);
        int colon = new String(bytes, StandardCharsets.UTF_8).lastIndexOf(':') + 1;
        assertThat(JsonUsageReader.read(bytes, 0, bytes.length)).isEqualTo(Usage.NONE);
        assertThat(streamed(bytes, colon)).as("cut right after the colon").isEqualTo(Usage.NONE);
        assertThat(streamed(bytes, colon + 1)).as("cut after the colon and its space").isEqualTo(Usage.NONE);
        for (int cut = 0; cut <= bytes.length; cut++) {
            assertThat(streamed(bytes, cut)).as("cut at %d", cut).isEqualTo(Usage.NONE);
        }
    }

    @Test
    void aCommaBeforeAClosingBraceMakesTheBodyMalformedButNotInsideAString() {
        String trailing = "{\"usage\":{\"prompt_tokens\":4,}}";
        String quoted = "{\"x\":\"4,}\",\"usage\":{\"prompt_tokens\":4}}";
        assertThat(streamed(trailing.getBytes(StandardCharsets.UTF_8), trailing.indexOf(',') + 1))
                .as("cut right after the comma").isEqualTo(Usage.NONE);
        assertThat(streamed(quoted.getBytes(StandardCharsets.UTF_8), quoted.indexOf(',') + 1))
                .as("the same cut inside a string").isEqualTo(new Usage(4, -1, -1));
    }

    @Test
    void readsTheCountsOfTypicalBodies() {
        assertThat(streamed(BODIES.get(0).getBytes(StandardCharsets.UTF_8))).isEqualTo(new Usage(2, 0, 1));
        assertThat(streamed(BODIES.get(3).getBytes(StandardCharsets.UTF_8))).isEqualTo(new Usage(12, 1, 2));
        assertThat(streamed(BODIES.get(5).getBytes(StandardCharsets.UTF_8))).isEqualTo(new Usage(4, -1, -1));
        assertThat(streamed(BODIES.get(6).getBytes(StandardCharsets.UTF_8))).isEqualTo(new Usage(11, -1, -1));
        assertThat(streamed(BODIES.get(11).getBytes(StandardCharsets.UTF_8))).isEqualTo(Usage.NONE);
        assertThat(streamed("{\"usage\":{\"prompt_tokens\":4}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(Usage.NONE);
    }
}
