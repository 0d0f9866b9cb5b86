package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.request.RequestKind;

class ChoosePdModeProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static final PdConfig SGLANG = new PdConfig(true, PdMode.SGLANG, List.of(), List.of(), null, null);
    private static final PdConfig VLLM = new PdConfig(true, PdMode.VLLM, List.of(), List.of(), null, null);

    private static String attemptOf(PdConfig config, RequestKind kind) {
        Exchange e = CAMEL.exchange();
        REQUEST_KIND.set(e, kind.wireName());
        ATTEMPT.set(e, "forward");
        new ChoosePdModeProcessor(config).process(e);
        return ATTEMPT.get(e);
    }

    @Test
    void generationKindsTakeTheModesPdAttempt() {
        for (RequestKind kind : List.of(RequestKind.CHAT, RequestKind.COMPLETIONS, RequestKind.GENERATE,
                RequestKind.RERANK, RequestKind.CLASSIFY, RequestKind.TOKENIZE, RequestKind.DETOKENIZE)) {
            assertThat(attemptOf(SGLANG, kind)).as(kind.wireName()).isEqualTo("pd-sglang");
        }
        assertThat(attemptOf(VLLM, RequestKind.CHAT)).isEqualTo("pd-vllm");
    }

    @Test
    void embeddingsAndTheResponsesApiStayOnRegularWorkers() {
        assertThat(attemptOf(SGLANG, RequestKind.EMBEDDINGS)).isEqualTo("forward");
        assertThat(attemptOf(SGLANG, RequestKind.RESPONSES)).isEqualTo("forward");
        assertThat(attemptOf(VLLM, RequestKind.RESPONSES)).isEqualTo("forward");
    }

    @Test
    void withoutPdNothingChanges() {
        assertThat(attemptOf(PdConfig.disabled(), RequestKind.CHAT)).isEqualTo("forward");
    }

    @Test
    void generateInVllmModeIs400() {
        assertThatThrownBy(() -> attemptOf(VLLM, RequestKind.GENERATE))
                .hasMessageStartingWith("/generate is not served in vLLM P/D mode");
    }
}
