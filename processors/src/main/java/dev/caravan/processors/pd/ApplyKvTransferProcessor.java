package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.PD_DECODE_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.error.GatewayError;

/**
 * vLLM P/D route step {@code applyKvTransfer}, after the prefill step: records the prefill leg's result and
 * <ul>
 *   <li>on a 2xx whose JSON carries {@code kv_transfer_params}: builds the decode step's body — the client's original
 *       request plus those {@code kv_transfer_params} (where the prompt's KV waits: engine, host, port, request id,
 *       blocks) — in {@code PD_DECODE_BODY};</li>
 *   <li>on a 2xx without them: 502 {@code prefill_server_error} (the engine is not configured for remote decode);</li>
 *   <li>otherwise (prefill failed, or the client left): decides the attempt at once ({@code PdVerdict.PROPERTY})
 *       with the decode leg never sent, so the route skips it.</li>
 * </ul>
 * Reads the body ({@link LegResult}), {@code REQUEST_JSON}, {@code PdDispatch.PROPERTY}. Writes {@code PD_DECODE_BODY}
 * or {@code PdVerdict.PROPERTY}.
 */
public final class ApplyKvTransferProcessor implements Processor {

    private final LegOutcomes outcomes;

    public ApplyKvTransferProcessor(LegOutcomes outcomes) {
        this.outcomes = outcomes;
    }

    @Override
    public void process(Exchange exchange) throws IOException {
        LegResult prefill = exchange.getIn().getBody(LegResult.class);
        PdDispatch dispatch = PdDispatch.PROPERTY.get(exchange);
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        if (prefill == null || dispatch == null || json == null) {
            throw new IllegalStateException("applyKvTransfer needs the prefill leg's result and openPdDispatch before it");
        }
        dispatch.arrived(prefill);
        if (!prefill.ok() || dispatch.clientGone()) {
            dispatch.arrived(LegResult.failed(Leg.DECODE, LegResult.Kind.CANCELLED, "not sent: prefill did not succeed"));
            PdVerdict.PROPERTY.set(exchange, dispatch.conclude(outcomes));
            return;
        }
        JsonNode params = kvTransferParams(prefill.body());
        if (params == null) {
            throw GatewayError.PREFILL_FAILED.exception("prefill worker " + dispatch.pair().prefill().worker().url()
                    + " answered without kv_transfer_params (is it configured for remote decode?)");
        }
        Map<String, Object> decode = new LinkedHashMap<>(json);
        decode.put("kv_transfer_params", PrepareKvTransferProcessor.MAPPER.treeToValue(params, Object.class));
        PD_DECODE_BODY.set(exchange, Buffer.buffer(PrepareKvTransferProcessor.MAPPER.writeValueAsBytes(decode)));
    }

    private static JsonNode kvTransferParams(Buffer body) {
        if (body == null || body.length() == 0) {
            return null;
        }
        try {
            JsonNode params = PrepareKvTransferProcessor.MAPPER.readTree(body.getBytes()).get("kv_transfer_params");
            return params != null && params.isObject() ? params : null;
        } catch (IOException e) {
            return null;
        }
    }
}
