package dev.caravan.processors.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.BeforeAll;

import dev.caravan.processors.FuzzOracle;

/**
 * Fuzz target: an engine's answer as the stream relay reads its token counts ({@link UsageSniffer}), a JSON body or
 * an SSE stream, whole and in pieces.
 *
 * <p>Input: byte 0's low bit picks the content type ({@code application/json} or {@code text/event-stream}), its other
 * seven bits the piece length (1 to 128 bytes); the rest is the body. Oracle: reading never throws (the relay must
 * never fail a response over its counts); the counts of the body fed whole equal those of the body fed in pieces (the
 * two readers and the SSE line joining agree); the estimate of output tokens is never negative; the thread allocates
 * within the {@link FuzzOracle} bound; and a known answer still reads its exact counts afterwards. Regression inputs:
 * {@code UsageReadingFuzzTestInputs/usageReading/}.
 */
class UsageReadingFuzzTest {

    static final String KNOWN = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":5,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":96}}}\n\ndata: [DONE]\n\n";

    @BeforeAll
    static void warmUp() {
        assertStillServing(); // outside any input's allocation
    }

    @FuzzTest(maxDuration = "60s")
    void usageReading(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        String contentType = (input[0] & 1) == 0 ? "application/json" : "text/event-stream";
        int piece = 1 + ((input[0] & 0xff) >>> 1);
        byte[] body = Arrays.copyOfRange(input, 1, input.length);
        FuzzOracle.allocationOf(body.length, () -> {
            UsageSniffer whole = UsageSniffer.forContentType(contentType);
            whole.accept(Buffer.buffer(body));
            assertThat(whole.outputSoFar()).isNotNegative();
            Usage wholeUsage = whole.finish();

            UsageSniffer pieces = UsageSniffer.forContentType(contentType);
            for (int at = 0; at < body.length; at += piece) {
                pieces.accept(Buffer.buffer(Arrays.copyOfRange(body, at, Math.min(body.length, at + piece))));
                assertThat(pieces.outputSoFar()).isNotNegative();
            }
            assertThat(pieces.finish()).as("counts read in pieces of %d", piece).isEqualTo(wholeUsage);
        });
        assertStillServing();
    }

    static void assertStillServing() {
        UsageSniffer known = UsageSniffer.forContentType("text/event-stream");
        known.accept(Buffer.buffer(KNOWN));
        assertThat(known.finish()).isEqualTo(new Usage(120, 96, 5));
    }
}
