package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.request.RequestKind;

/**
 * Inference route step {@code choosePdMode}: with {@code --pd-disaggregation}, gives chat, completions and generate
 * requests the P/D attempt body of the configured mode ({@code ATTEMPT} = {@code pd-sglang} / {@code pd-vllm}: the
 * attempt loop then runs {@code direct:attempt-pd-<mode>} instead of the regular forward steps), and so do rerank,
 * classify, tokenize and detokenize. Two kinds stay on regular workers ({@code 503} naming that when there are none):
 * embeddings, which have no decode phase, and the Responses API, whose engines keep each response and its
 * conversation where it was answered — a pair would split it over two engines, neither of which could give it back
 * ({@code GET /v1/responses/{id}}) or continue it ({@code previous_response_id}); SGLang's P/D router refuses it. In
 * vLLM mode {@code /generate} (SGLang's API, which vLLM's {@code kv_transfer_params} protocol does not cover) is a
 * 400. Without P/D it does nothing.
 *
 * <p>Reads {@code REQUEST_KIND}. Writes {@code ATTEMPT}.
 */
public final class ChoosePdModeProcessor implements Processor {

    /** A P/D attempt body is {@code pd-<mode>} ({@code direct:attempt-pd-sglang}, pd.camel.yaml). */
    public static final String ATTEMPT_PREFIX = "pd-";

    private final PdConfig config;

    public ChoosePdModeProcessor(PdConfig config) {
        this.config = config;
    }

    @Override
    public void process(Exchange exchange) {
        if (!config.enabled()) {
            return;
        }
        RequestKind kind = RequestKind.parse(REQUEST_KIND.get(exchange));
        if (kind == RequestKind.EMBEDDINGS || kind == RequestKind.RESPONSES) {
            return;
        }
        if (kind == RequestKind.GENERATE && config.mode() == PdMode.VLLM) {
            throw GatewayError.INVALID_REQUEST.exception("/generate is not served in vLLM P/D mode (--pd-mode vllm "
                    + "serves /v1/completions and /v1/chat/completions); use --pd-mode sglang");
        }
        ATTEMPT.set(exchange, ATTEMPT_PREFIX + config.mode().wireName());
    }
}
