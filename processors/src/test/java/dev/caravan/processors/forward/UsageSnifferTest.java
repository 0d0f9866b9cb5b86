package dev.caravan.processors.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class UsageSnifferTest {

    private static Usage feed(String contentType, String... chunks) {
        UsageSniffer s = UsageSniffer.forContentType(contentType);
        for (String c : chunks) {
            s.accept(Buffer.buffer(c));
        }
        return s.finish();
    }

    /** A chunk that is a slice of a larger array, as a network read's buffer may be. */
    private static Buffer slice(String text) {
        byte[] padded = ("XXXX" + text + "YYYY").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return Buffer.buffer(io.netty.buffer.Unpooled.wrappedBuffer(padded).slice(4, padded.length - 8));
    }

    @Test
    void readsOnlyTheBytesOfAChunkThatIsASliceOfALargerArray() {
        UsageSniffer json = UsageSniffer.forContentType("application/json");
        json.accept(slice("{\"usage\":{\"prompt_tokens\":5,"));
        json.accept(slice("\"completion_tokens\":2}}"));
        assertThat(json.finish()).isEqualTo(new Usage(5, -1, 2));

        UsageSniffer sse = UsageSniffer.forContentType("text/event-stream");
        sse.accept(slice("data: {\"choices\":[{}]}\n\ndata: {\"usage\":{\"prompt_to"));
        sse.accept(slice("kens\":9,\"completion_tokens\":1}}\n\n"));
        assertThat(sse.outputSoFar()).isEqualTo(2);
        assertThat(sse.finish()).isEqualTo(new Usage(9, -1, 1));
    }

    @Test
    void theContentTypeMatchesInAnyAsciiCaseAndOnlyAtItsStart() {
        assertThat(UsageSniffer.startsWithIgnoringAsciiCase("Application/JSON; charset=utf-8", "application/json"))
                .isTrue();
        assertThat(UsageSniffer.startsWithIgnoringAsciiCase("TEXT/EVENT-STREAM", "text/event-stream")).isTrue();
        assertThat(UsageSniffer.startsWithIgnoringAsciiCase("application/jso", "application/json")).isFalse();
        assertThat(UsageSniffer.startsWithIgnoringAsciiCase(" application/json", "application/json")).isFalse();
        assertThat(UsageSniffer.startsWithIgnoringAsciiCase("appl\u0130cation/json", "application/json")).isFalse();
        assertThat(UsageSniffer.startsWithIgnoringAsciiCase(null, "application/json")).isFalse();
        assertThat(feed("Application/Json", "{\"usage\":{\"prompt_tokens\":1}}")).isEqualTo(new Usage(1, -1, -1));
    }

    @Test
    void readsOpenAiUsageFromTheFinalSseChunk() {
        Usage u = feed("text/event-stream",
                "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n",
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":5,"
                        + "\"prompt_tokens_details\":{\"cached_tokens\":96}}}\n\n",
                "data: [DONE]\n\n");
        assertThat(u).isEqualTo(new Usage(120, 96, 5));
    }

    @Test
    void reassemblesAUsageLineSplitAcrossChunks() {
        Usage u = feed("text/event-stream; charset=utf-8",
                "data: {\"usage\":{\"prompt_t", "okens\":7,\"prompt_tokens_details\":{\"cach",
                "ed_tokens\":3}}}\n", "\ndata: [DONE]\n\n");
        assertThat(u).isEqualTo(new Usage(7, 3, -1));
    }

    @Test
    void keepsTheLastSglangMetaInfoOfAStream() {
        Usage u = feed("text/event-stream",
                "data: {\"text\":\"a\",\"meta_info\":{\"prompt_tokens\":10,\"cached_tokens\":4,\"completion_tokens\":1}}\n\n"
                        + "data: {\"text\":\"ab\",\"meta_info\":{\"prompt_tokens\":10,\"cached_tokens\":4,"
                        + "\"completion_tokens\":2}}\n\n");
        assertThat(u).isEqualTo(new Usage(10, 4, 2));
    }

    @Test
    void readsUsageFromAJsonBodyInPieces() {
        Usage u = feed("application/json", "{\"id\":\"x\",\"usage\":{\"prompt_tokens\":",
                "12,\"completion_tokens\":3}}");
        assertThat(u).isEqualTo(new Usage(12, -1, 3));
    }

    @Test
    void aJsonBodyInOneChunkIsReadAtItsEndAndABodyInSeveralIncludesItsFirstChunk() {
        UsageSniffer one = UsageSniffer.forContentType("application/json");
        one.accept(slice("{\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":1}}"));
        assertThat(one.outputSoFar()).isZero();
        assertThat(one.finish()).isEqualTo(new Usage(6, -1, 1));
        assertThat(one.finish()).as("asked again").isEqualTo(new Usage(6, -1, 1));

        assertThat(feed("application/json", "{\"usage\":{\"prompt_tokens\":6}}", "\n")).isEqualTo(new Usage(6, -1, -1));
        assertThat(feed("application/json", "{\"usage\":{\"prompt_tokens\":6}", "}")).isEqualTo(new Usage(6, -1, -1));
        assertThat(feed("application/json", "{\"usage\":{\"prompt_tokens\":6}", "", "")).isEqualTo(Usage.NONE);
        assertThat(feed("application/json", "{\"usage\":{\"prompt_tokens\":6}}", "not json"))
                .as("what follows the value is ignored, as before").isEqualTo(new Usage(6, -1, -1));
    }

    @Test
    void sumsABatchGenerateResponse() {
        Usage u = feed("application/json", "[{\"meta_info\":{\"prompt_tokens\":3,\"cached_tokens\":1}},"
                + "{\"meta_info\":{\"prompt_tokens\":4,\"cached_tokens\":2}}]");
        assertThat(u).isEqualTo(new Usage(7, 3, -1));
    }

    @Test
    void aBatchAnswerWithAFieldMissingItsValueGivesNoCountsWholeOrInPieces() {
        String body = "[{\"text\": \"a\", \"meta_info\": {\"prompt_tokens\": 10, \"cached_tokens\": 4}}, "
                + "{\"text\": \"b\", \"meta_info\": {\"prompt_tokens\": }}]";
        int cut = body.lastIndexOf(':') + 2; // after the colon and its space
        assertThat(feed("application/json", body)).isEqualTo(Usage.NONE);
        assertThat(feed("application/json", body.substring(0, cut), body.substring(cut))).isEqualTo(Usage.NONE);
    }

    @Test
    void reportsNothingForBodiesWithoutUsage() {
        assertThat(feed("application/json", "{\"ok\":true}")).isEqualTo(Usage.NONE);
        assertThat(feed("application/json", "not json")).isEqualTo(Usage.NONE);
        assertThat(feed("application/json")).as("an empty body").isEqualTo(Usage.NONE);
        assertThat(feed("text/plain", "prompt_tokens 5")).isEqualTo(Usage.NONE);
        assertThat(feed("text/event-stream", "data: {\"prompt_tokens\": broken\n")).isEqualTo(Usage.NONE);
    }

    @Test
    void givesUpOnJsonBodiesLargerThanTheCap() {
        UsageSniffer s = UsageSniffer.forContentType("application/json");
        s.accept(Buffer.buffer("{\"usage\":{\"prompt_tokens\":1},\"pad\":\""));
        s.accept(Buffer.buffer(new byte[UsageSniffer.MAX_JSON_BYTES]));
        s.accept(Buffer.buffer("\"}"));
        assertThat(s.finish()).isEqualTo(Usage.NONE);

        UsageSniffer whole = UsageSniffer.forContentType("application/json");
        byte[] big = ("{\"usage\":{\"prompt_tokens\":1},\"pad\":\"" + "x".repeat(UsageSniffer.MAX_JSON_BYTES) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        whole.accept(Buffer.buffer(big));
        assertThat(whole.finish()).as("in one chunk").isEqualTo(Usage.NONE);
    }

    @Test
    void countsOneOutputTokenPerStreamedEventButNotDoneOrTheUsageOnlyEvent() {
        UsageSniffer s = UsageSniffer.forContentType("text/event-stream");
        s.accept(Buffer.buffer("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata: {\"choices\":[{\"del"));
        assertThat(s.outputSoFar()).as("an incomplete event is not counted yet").isEqualTo(2);

        s.accept(Buffer.buffer("ta\":{\"content\":\"c\"}}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\n"
                + "data: [DONE]\n\n"));

        assertThat(s.outputSoFar()).as("3 events, more than the 2 reported: the estimate stands until settled")
                .isEqualTo(3);
        assertThat(s.finish()).isEqualTo(new Usage(9, -1, 2));
    }

    @Test
    void takesSglangsCumulativeCompletionTokensWhenTheyAreMoreThanTheEvents() {
        UsageSniffer s = UsageSniffer.forContentType("text/event-stream");
        s.accept(Buffer.buffer("data: {\"text\":\"abcd\",\"meta_info\":{\"prompt_tokens\":10,"
                + "\"completion_tokens\":4}}\n\n"));
        assertThat(s.outputSoFar()).isEqualTo(4);
    }

    @Test
    void aJsonBodyHasNoOutputUntilItsUsageIsRead() {
        UsageSniffer s = UsageSniffer.forContentType("application/json");
        s.accept(Buffer.buffer("{\"choices\":[{\"text\":\"hi\"}],"));
        assertThat(s.outputSoFar()).isZero();
    }

    @Test
    void aPdRequestsPromptComesFromPrefillAndItsOutputFromDecodeOnly() {
        assertThat(Usage.promptAndOutput(new Usage(100, 64, 1), new Usage(100, 0, 12)))
                .isEqualTo(new Usage(100, 64, 12));
        assertThat(Usage.promptAndOutput(Usage.NONE, new Usage(100, 0, 12))).isEqualTo(new Usage(100, 0, 12));
        assertThat(Usage.promptAndOutput(null, Usage.NONE)).isEqualTo(Usage.NONE);
        assertThat(Usage.promptAndOutput(new Usage(100, 64, 1), Usage.NONE))
                .as("decode reported nothing: the output is unknown, not prefill's one token")
                .isEqualTo(new Usage(100, 64, -1));
    }
}
