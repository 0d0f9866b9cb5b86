package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.Json;

/**
 * Route step {@code pinDataParallelRank} (each attempt, after {@code selectWorker}): when the chosen worker is one
 * data-parallel rank of an engine ({@code http://host:port@rank}, {@code --dp-aware}), or the policy chose one rank of
 * a data-parallel engine (kv_aware's per-rank decision, {@code Decision#dataParallelRank()}), pins the request to that
 * rank as SGLang's router does and as vLLM accepts: the header {@value #HEADER} (vLLM's API server and SGLang's read
 * it), and for SGLang engines also {@code data_parallel_rank} in the JSON body (what SGLang's router sets, replacing a
 * client's value). A later attempt on a worker without a rank sends neither (a client's own header is left alone). A
 * route that replaced the body ({@code UPSTREAM_BODY}) keeps its body and gets the header only.
 */
public final class PinDataParallelRankProcessor implements org.apache.camel.Processor {

    /** The request header both engines read to pin a request to a rank. */
    public static final String HEADER = "X-data-parallel-rank";
    /** The body field SGLang's router sets. */
    public static final String FIELD = "data_parallel_rank";

    /** The body this step set, so a later attempt can tell it from a route's own. */
    private static final ExchangeProperty<Buffer> PINNED_BODY =
            ExchangeProperty.of("caravanDpRankBody", Buffer.class);
    /** This step set the header (a client's own header is left alone). */
    private static final ExchangeProperty<Boolean> PINNED_HEADER =
            ExchangeProperty.of("caravanDpRankHeader", Boolean.class);

    private final EngineRuntime fallback;

    /** @param fallback the engine of workers whose engine is not known ({@code --backend}) */
    public PinDataParallelRankProcessor(EngineRuntime fallback) {
        this.fallback = fallback;
    }

    @Override
    public void process(Exchange exchange) {
        Worker worker = WORKER.get(exchange);
        Message message = exchange.getIn();
        Object current = UPSTREAM_BODY.get(exchange);
        Buffer pinned = PINNED_BODY.get(exchange);
        boolean ours = current == null || current == pinned;
        if (pinned != null && current == pinned) {
            exchange.removeProperty(UPSTREAM_BODY.name());
            exchange.removeProperty(PINNED_BODY.name());
        }
        Integer rank = worker == null ? null : worker.dataParallelRank();
        if (rank == null && worker != null && DECISION.get(exchange) != null) {
            rank = DECISION.get(exchange).dataParallelRank();
        }
        if (rank == null) {
            if (PINNED_HEADER.get(exchange, false)) {
                message.removeHeader(HEADER);
                exchange.removeProperty(PINNED_HEADER.name());
            }
            return;
        }
        message.setHeader(HEADER, Integer.toString(rank));
        PINNED_HEADER.set(exchange, true);
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        if (ours && json != null && worker.runtimeOr(fallback) == EngineRuntime.SGLANG) {
            Map<String, Object> body = new LinkedHashMap<>(json);
            body.put(FIELD, rank);
            Buffer b = Buffer.buffer(Json.write(body).getBytes(StandardCharsets.UTF_8));
            UPSTREAM_BODY.set(exchange, b);
            PINNED_BODY.set(exchange, b);
        }
    }
}
