package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.PD_LOGPROBS;
import static dev.caravan.processors.CaravanExchangeProperties.PD_PREFILL_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * vLLM P/D route step {@code prepareKvTransfer}: the prefill step's body, as vLLM's disaggregated proxy builds it — the
 * client's request with {@code max_tokens: 1} (and {@code max_completion_tokens: 1} when present), {@code stream:
 * false}, no {@code stream_options}, and {@code kv_transfer_params: {do_remote_decode: true, do_remote_prefill: false,
 * remote_engine_id: null, remote_block_ids: null, remote_host: null, remote_port: null}}, which asks the engine to
 * keep the prompt's KV for a remote decode and to say where it is.
 *
 * <p>Reads {@code REQUEST_JSON}. Writes {@code PD_PREFILL_BODY}, {@code PD_LOGPROBS} (false: vLLM's decode returns the
 * prompt logprobs itself when asked).
 */
public final class PrepareKvTransferProcessor implements Processor {

    static final ObjectMapper MAPPER = new ObjectMapper();

    @Override
    public void process(Exchange exchange) throws JsonProcessingException {
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        if (json == null) {
            throw new IllegalStateException("prepareKvTransfer needs parseRequest before it");
        }
        Map<String, Object> prefill = new LinkedHashMap<>(json);
        prefill.put("max_tokens", 1);
        if (prefill.containsKey("max_completion_tokens")) {
            prefill.put("max_completion_tokens", 1);
        }
        prefill.put("stream", false);
        prefill.remove("stream_options");
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("do_remote_decode", true);
        kv.put("do_remote_prefill", false);
        kv.put("remote_engine_id", null);
        kv.put("remote_block_ids", null);
        kv.put("remote_host", null);
        kv.put("remote_port", null);
        prefill.put("kv_transfer_params", kv);
        PD_PREFILL_BODY.set(exchange, Buffer.buffer(MAPPER.writeValueAsBytes(prefill)));
        PD_LOGPROBS.set(exchange, false);
    }
}
