package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class SseLogprobSplicerTest {

    /** What a prefill engine returns: the whole prompt's logprobs. */
    private static final PrefillLogprobs PREFILL = PrefillLogprobs.read(Buffer.buffer(
            "{\"text\":\"a\",\"meta_info\":{\"input_token_logprobs\":[[null,11,null],[-0.5,12,null]]}}"));

    private static String event(int completion) {
        return "data: {\"text\":\"t" + completion + "\",\"meta_info\":{\"completion_tokens\":" + completion
                + ",\"input_token_logprobs\":[],\"output_token_logprobs\":[[-1.0," + (100 + completion) + ",null]]}}\n\n";
    }

    private static String spliced(int completion) {
        return "data: {\"text\":\"t" + completion + "\",\"meta_info\":{\"completion_tokens\":" + completion
                + ",\"input_token_logprobs\":[[null,11,null],[-0.5,12,null]],\"output_token_logprobs\":[[-1.0,"
                + (100 + completion) + ",null]]}}\n\n";
    }

    private static String run(BodyRewriter rewriter, List<byte[]> chunks) {
        StringBuilder out = new StringBuilder();
        for (byte[] c : chunks) {
            out.append(rewriter.onChunk(Buffer.buffer(c)).toString(StandardCharsets.UTF_8));
        }
        out.append(rewriter.onEnd().toString(StandardCharsets.UTF_8));
        return out.toString();
    }

    private static List<byte[]> cut(String text, int... at) {
        byte[] all = text.getBytes(StandardCharsets.UTF_8);
        List<byte[]> out = new ArrayList<>();
        int from = 0;
        for (int a : at) {
            out.add(java.util.Arrays.copyOfRange(all, from, a));
            from = a;
        }
        out.add(java.util.Arrays.copyOfRange(all, from, all.length));
        return out;
    }

    @Test
    void prependsPrefillLogprobsToEveryEvent() {
        String in = event(1) + event(2) + "data: [DONE]\n\n";
        String out = run(new SseLogprobSplicer(PREFILL), List.of(in.getBytes(StandardCharsets.UTF_8)));
        assertThat(out).isEqualTo(spliced(1) + spliced(2) + "data: [DONE]\n\n");
    }

    @Test
    void framesEventsAcrossEveryPossibleChunkBoundary() {
        String in = event(1) + event(2) + "data: [DONE]\n\n";
        String expected = spliced(1) + spliced(2) + "data: [DONE]\n\n";
        int length = in.getBytes(StandardCharsets.UTF_8).length;
        for (int a = 1; a < length; a++) {
            assertThat(run(new SseLogprobSplicer(PREFILL), cut(in, a))).as("cut at %d", a).isEqualTo(expected);
        }
    }

    @Test
    void framesEventsCutIntoRandomSmallChunks() {
        String in = event(1) + event(2) + event(3) + "data: [DONE]\n\n";
        String expected = spliced(1) + spliced(2) + spliced(3) + "data: [DONE]\n\n";
        Random random = new Random(42);
        int length = in.getBytes(StandardCharsets.UTF_8).length;
        for (int trial = 0; trial < 200; trial++) {
            List<Integer> cuts = new ArrayList<>();
            for (int p = 1 + random.nextInt(7); p < length; p += 1 + random.nextInt(7)) {
                cuts.add(p);
            }
            int[] at = cuts.stream().mapToInt(Integer::intValue).toArray();
            assertThat(run(new SseLogprobSplicer(PREFILL), cut(in, at))).isEqualTo(expected);
        }
    }

    @Test
    void emitsAnEventAsSoonAsItsBlankLineArrives() {
        SseLogprobSplicer splicer = new SseLogprobSplicer(PREFILL);
        String e1 = event(1);
        assertThat(splicer.onChunk(Buffer.buffer(e1.substring(0, 20))).length()).isZero();
        assertThat(splicer.onChunk(Buffer.buffer(e1.substring(20))).toString()).isEqualTo(spliced(1));
    }

    @Test
    void doneIsRecognisedOnlyAsAWholeLine() {
        // a JSON payload that merely contains the text [DONE] is still an event to splice
        String tricky = "data: {\"text\":\"[DONE]\",\"meta_info\":{\"input_token_logprobs\":[]}}\n\n";
        String out = run(new SseLogprobSplicer(PREFILL), List.of(tricky.getBytes(StandardCharsets.UTF_8)));
        assertThat(out).isEqualTo("data: {\"text\":\"[DONE]\",\"meta_info\":{\"input_token_logprobs\":"
                + "[[null,11,null],[-0.5,12,null]]}}\n\n");
    }

    @Test
    void passesUnparsableAndForeignEventsThroughByteForByte() {
        String in = ": keep-alive comment\n\n"
                + "data: {not json, input_token_logprobs\n\n"
                + "event: ping\ndata: {\"choices\":[]}\n\n"
                + "data:{\"meta_info\":{\"other\":1}}\r\n\r\n";
        assertThat(run(new SseLogprobSplicer(PREFILL), List.of(in.getBytes(StandardCharsets.UTF_8)))).isEqualTo(in);
    }

    @Test
    void acceptsCrLfLineEndingsAndKeepsTheEventsOtherFields() {
        String in = "id: 7\r\ndata: {\"meta_info\":{\"input_token_logprobs\":[[-2.0,13,null]]}}\r\n\r\n";
        String out = run(new SseLogprobSplicer(PREFILL), cut(in, 5, 17));
        assertThat(out).isEqualTo("id: 7\r\ndata: {\"meta_info\":{\"input_token_logprobs\":"
                + "[[null,11,null],[-0.5,12,null],[-2.0,13,null]]}}\n\r\n");
    }

    @Test
    void joinsMultiLineDataBeforeParsing() {
        String in = "data: {\"meta_info\":\ndata: {\"input_token_logprobs\":[]}}\n\n";
        assertThat(run(new SseLogprobSplicer(PREFILL), List.of(in.getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("data: {\"meta_info\":{\"input_token_logprobs\":[[null,11,null],[-0.5,12,null]]}}\n\n");
    }

    @Test
    void writesAnUnterminatedLastEventAsItCame() {
        String in = event(1) + "data: {\"meta_info\":{\"input_token_logprobs\":[]}}";
        assertThat(run(new SseLogprobSplicer(PREFILL), List.of(in.getBytes(StandardCharsets.UTF_8))))
                .isEqualTo(spliced(1) + "data: {\"meta_info\":{\"input_token_logprobs\":[]}}");
    }

    @Test
    void splicesBatchEventsByTheirIndex() {
        PrefillLogprobs batch = PrefillLogprobs.read(Buffer.buffer("["
                + "{\"meta_info\":{\"input_token_logprobs\":[[null,1,null]]}},"
                + "{\"meta_info\":{\"input_token_logprobs\":[[null,2,null]]}}]"));
        String in = "data: {\"index\":1,\"meta_info\":{\"input_token_logprobs\":[]}}\n\n"
                + "data: {\"index\":0,\"meta_info\":{\"input_token_logprobs\":[]}}\n\n";
        assertThat(run(new SseLogprobSplicer(batch), List.of(in.getBytes(StandardCharsets.UTF_8)))).isEqualTo(
                "data: {\"index\":1,\"meta_info\":{\"input_token_logprobs\":[[null,2,null]]}}\n\n"
                        + "data: {\"index\":0,\"meta_info\":{\"input_token_logprobs\":[[null,1,null]]}}\n\n");
    }

    @Test
    void keepsMultiByteCharactersIntactWhenAChunkSplitsThem() {
        String in = "data: {\"text\":\"日本語\",\"meta_info\":{\"input_token_logprobs\":[]}}\n\n";
        byte[] bytes = in.getBytes(StandardCharsets.UTF_8);
        int inside = in.indexOf('日') + 1; // a byte offset inside the 3-byte character
        String expected = "data: {\"text\":\"日本語\",\"meta_info\":{\"input_token_logprobs\":"
                + "[[null,11,null],[-0.5,12,null]]}}\n\n";
        assertThat(bytes.length).isGreaterThan(inside);
        assertThat(run(new SseLogprobSplicer(PREFILL), cut(in, inside, inside + 1))).isEqualTo(expected);
    }
}
