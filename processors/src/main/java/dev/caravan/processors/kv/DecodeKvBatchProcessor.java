package dev.caravan.processors.kv;

import static dev.caravan.processors.CaravanExchangeProperties.KV_WORKER_ID;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.kv.KvDecodeException.Reason;

/**
 * Route step {@code decodeKvBatch}: turns the {@code zeromq:} consumer's body ({@code List<byte[]>} frames) into a
 * {@link KvEventMessage} body. An undecodable message is counted on the worker ({@link KvEventIngestor#onDecodeError})
 * and ends this exchange's route ({@link Exchange#setRouteStop}) without an exception, so it never reaches the error
 * handler and never stops the consumer. Requires {@link CaravanExchangeProperties#KV_WORKER_ID}.
 */
public final class DecodeKvBatchProcessor implements Processor {

    private final KvEventIngestor ingestor;

    public DecodeKvBatchProcessor(KvEventIngestor ingestor) {
        this.ingestor = ingestor;
    }

    @Override
    public void process(Exchange exchange) {
        String workerId = KV_WORKER_ID.get(exchange);
        Object body = exchange.getIn().getBody();
        try {
            if (!(body instanceof List<?> list) || !list.stream().allMatch(f -> f instanceof byte[])) {
                throw new KvDecodeException(Reason.FRAME_COUNT, "body must be the message's frames (List<byte[]>), was "
                        + (body == null ? "null" : body.getClass().getName()));
            }
            @SuppressWarnings("unchecked")
            List<byte[]> frames = (List<byte[]>) body;
            exchange.getIn().setBody(KvEventDecoder.decode(frames));
        } catch (KvDecodeException e) {
            ingestor.onDecodeError(workerId, e);
            exchange.setRouteStop(true);
        }
    }
}
