package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class LogprobSpliceTest {

    private static final String PREFILL_JSON =
            "{\"text\":\"x\",\"meta_info\":{\"input_token_logprobs\":[[null,1,null],[-0.25,2,null]]}}";

    private static String splice(String decode, String prefill) {
        return LogprobSplice.spliceJson(Buffer.buffer(decode), PrefillLogprobs.read(Buffer.buffer(prefill)))
                .toString(StandardCharsets.UTF_8);
    }

    @Test
    void prependsPrefillInputLogprobsToDecodes() {
        assertThat(splice("{\"text\":\"y\",\"meta_info\":{\"input_token_logprobs\":[[-3.0,3,null]],\"k\":1}}",
                PREFILL_JSON)).isEqualTo("{\"text\":\"y\",\"meta_info\":{\"input_token_logprobs\":"
                + "[[null,1,null],[-0.25,2,null],[-3.0,3,null]],\"k\":1}}");
    }

    @Test
    void splicesEachBatchItemWithItsOwnPrefillItem() {
        String prefill = "[{\"meta_info\":{\"input_token_logprobs\":[[null,1,null]]}},"
                + "{\"meta_info\":{\"input_token_logprobs\":[[null,2,null]]}}]";
        String decode = "[{\"meta_info\":{\"input_token_logprobs\":[]}},{\"meta_info\":{\"input_token_logprobs\":[]}}]";
        assertThat(splice(decode, prefill)).isEqualTo("[{\"meta_info\":{\"input_token_logprobs\":[[null,1,null]]}},"
                + "{\"meta_info\":{\"input_token_logprobs\":[[null,2,null]]}}]");
    }

    @Test
    void leavesTheBodyUnchangedWhenDecodeHasNoSuchField() {
        String decode = "{\"choices\":[{\"text\":\"hi\"}],\"usage\":{\"prompt_tokens\":3}}";
        assertThat(splice(decode, PREFILL_JSON)).isEqualTo(decode);
    }

    @Test
    void leavesAnUnparsableBodyUnchanged() {
        assertThat(splice("{\"meta_info\":{\"input_token_logprobs\":[", PREFILL_JSON))
                .isEqualTo("{\"meta_info\":{\"input_token_logprobs\":[");
    }

    @Test
    void readsPrefillLogprobsFromAStreamedPrefillResponse() {
        PrefillLogprobs p = PrefillLogprobs.read(Buffer.buffer("data: {\"meta_info\":{\"input_token_logprobs\":"
                + "[[null,9,null]]}}\n\ndata: [DONE]\n\n"));
        assertThat(p.forIndex(0).toString()).isEqualTo("[[null,9,null]]");
    }

    @Test
    void findsNothingInAPrefillResponseWithoutLogprobs() {
        assertThat(PrefillLogprobs.read(Buffer.buffer("{\"text\":\"x\",\"meta_info\":{}}")).isEmpty()).isTrue();
        assertThat(PrefillLogprobs.read(Buffer.buffer("not json")).isEmpty()).isTrue();
        assertThat(PrefillLogprobs.read(null).isEmpty()).isTrue();
    }

    @Test
    void jsonSplicerHoldsTheBodyUntilItEnds() {
        JsonLogprobSplicer splicer = new JsonLogprobSplicer(PrefillLogprobs.read(Buffer.buffer(PREFILL_JSON)));
        assertThat(splicer.onChunk(Buffer.buffer("{\"meta_info\":{\"input_token_lo")).length()).isZero();
        assertThat(splicer.onChunk(Buffer.buffer("gprobs\":[]}}")).length()).isZero();
        assertThat(splicer.onEnd().toString()).isEqualTo(
                "{\"meta_info\":{\"input_token_logprobs\":[[null,1,null],[-0.25,2,null]]}}");
    }
}
