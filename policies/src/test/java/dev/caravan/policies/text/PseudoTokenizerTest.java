package dev.caravan.policies.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

class PseudoTokenizerTest {

    private final PseudoTokenizer tokenizer = new PseudoTokenizer();

    @Test
    void cutsTextIntoFourCodePointTokens() {
        assertThat(tokenizer.encode("abcdefghij")).hasSize(3);
        assertThat(tokenizer.count("abcdefghij")).isEqualTo(3);
        assertThat(tokenizer.encode("")).isEmpty();
    }

    @Test
    void countsCodePointsNotUtf16Units() {
        assertThat(tokenizer.encode("你好嗎你")).hasSize(1);
        assertThat(tokenizer.encode("😀😀😀😀😀")).hasSize(2);
    }

    @Test
    void sameTextGivesSameTokensAndExtensionsKeepTheWholeChunkPrefix() {
        int[] a = tokenizer.encode("the system prompt of tenant 7");
        int[] b = tokenizer.encode("the system prompt of tenant 7 and a question");
        assertThat(tokenizer.encode("the system prompt of tenant 7")).containsExactly(a);
        int whole = "the system prompt of tenant 7".length() / 4;
        assertThat(Arrays.copyOf(b, whole)).containsExactly(Arrays.copyOf(a, whole));
    }

    @Test
    void idsStayInsideTheVocabulary() {
        for (int id : tokenizer.encode("some text with many different chunks 0123456789 !@#$%^&*()")) {
            assertThat(id).isBetween(0, PseudoTokenizer.VOCAB_SIZE - 1);
        }
    }
}
