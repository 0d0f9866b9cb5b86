package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.drive.EngineTokens;
import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.drive.ReuseTracker;
import dev.caravan.bench.workload.BenchRequest;
import dev.caravan.sim.text.EngineTokenizer;
import dev.caravan.sim.text.ModelText;
import dev.caravan.sim.text.SyntheticTokenizer;

/**
 * The reuse figures and ceilings count in the engines' tokens, the units of the {@code prompt_tokens} they report,
 * whatever tokenizer the engines use. With a real tokenizer that makes fewer tokens than one per 4 characters, counting
 * the harness's synthetic tokens instead put the ceilings above the prompt (Belady 1.109 of the hit rate's units in
 * the HTTP hot-tenant run).
 */
class EngineTokenCeilingsTest {

    /** An engine tokenizer of one token per space-separated word: 8 characters per token on the prompts below. */
    private static final EngineTokenizer WORDS = new EngineTokenizer() {
        @Override
        public int[] encode(String text, boolean addSpecialTokens) {
            return Arrays.stream(text.trim().split(" +")).mapToInt(String::hashCode).toArray();
        }

        @Override
        public String decode(int tokenId) {
            return "";
        }

        @Override
        public String name() {
            return "words";
        }
    };

    private static final String A = "alpha01 alpha02 alpha03 alpha04 alpha05";
    private static final String B = "bravo01 bravo02 bravo03 bravo04 bravo05";

    @Test
    void withAWordTokenizerTheCeilingsCountWhatTheEnginesCount() {
        // 5 engine tokens each, blocks of 2: 2 full blocks, both countable ((5 - 1) / 2). Pooled capacity 3 blocks.
        // LRU: B's two blocks evict A's tail block (touched before its head), so A's return finds its first block only.
        // Belady: B's blocks are never needed again, so A's two blocks stay.
        // Counting 4 characters a token instead (the bug) made A 10 tokens, 4 countable blocks of 2, and Belady kept 3
        // of them: 6 tokens served of a prompt the engine counts as 5.
        ReuseTracker tracker = new ReuseTracker(2, new EngineTokens(new ModelText(WORDS, null)));
        List<RequestRecord> records = new ArrayList<>();
        for (String prompt : List.of(A, B, A)) {
            BenchRequest r = BenchRequest.completion(0, prompt, null, 1, 0);
            RequestRecord rec = new RequestRecord(records.size(), false, 0, 0, tracker.admit(r), 0, null, 0);
            rec.promptTokens = WORDS.encode(prompt, true).length;
            records.add(rec);
        }
        tracker.applyCeilings(records, 3);

        assertThat(records).extracting(r -> r.promptTokens).containsExactly(5, 5, 5);
        assertThat(records).extracting(r -> r.reusableTokens).containsExactly(0, 0, 4);
        assertThat(records).extracting(r -> r.pooledLruTokens).containsExactly(0, 0, 2);
        assertThat(records).extracting(r -> r.beladyTokens).containsExactly(0, 0, 4);
    }

    @Test
    void withTheSyntheticTokenizerAChatPromptIsTheEnginesRenderingCutIntoChunks() {
        BenchRequest chat = BenchRequest.chat(0, List.of(BenchRequest.message("system", "You are terse."),
                BenchRequest.message("user", "Name three rivers.")), null, 8, 0, null);
        EngineTokens tokens = new EngineTokens(ModelText.synthetic(4));
        SyntheticTokenizer synthetic = new SyntheticTokenizer(4);

        assertThat(tokens.prompt(chat)).containsExactly(synthetic.encode(chat.renderedText(), false));
        assertThat(tokens.promptAndAnswer(chat, " the sea"))
                .containsExactly(synthetic.encode(chat.renderedText() + " the sea", false));
    }

    @Test
    void aCompletionIsEncodedWithTheTokenizersSpecialTokensAndAChatWithout() {
        boolean[] special = new boolean[2];
        EngineTokenizer recording = new EngineTokenizer() {
            @Override
            public int[] encode(String text, boolean addSpecialTokens) {
                special[text.startsWith("<chat>") ? 1 : 0] = addSpecialTokens;
                return new int[] {1};
            }

            @Override
            public String decode(int tokenId) {
                return "";
            }

            @Override
            public String name() {
                return "recording";
            }
        };
        EngineTokens tokens = new EngineTokens(new ModelText(recording,
                new dev.caravan.sim.text.ChatRenderer() {
                    @Override
                    public String render(List<?> messages, List<?> tools, boolean addGenerationPrompt,
                                         Map<String, Object> kwargs) {
                        return "<chat>" + addGenerationPrompt;
                    }

                    @Override
                    public String name() {
                        return "test";
                    }
                }));
        special[1] = true;
        tokens.prompt(BenchRequest.completion(0, "plain", null, 1, 0));
        tokens.prompt(BenchRequest.chat(0, List.of(BenchRequest.message("user", "hi")), null, 1, 0, null));

        assertThat(special).containsExactly(true, false);
    }
}
