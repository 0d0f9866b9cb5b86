package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.MODEL;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.Json;
import dev.caravan.processors.error.GatewayError;

/**
 * Control step {@code retrieveModel} ({@code GET /v1/models/{model}}, after {@code mergeModels}): OpenAI's "retrieve
 * model", the entry of the merged model list whose {@code id} is {@code MODEL} ({@code modelFromPath}), answered as
 * that model object. An id that no healthy worker lists is 404 {@code model_not_found} in OpenAI's words; without
 * {@code MODEL} (nothing after {@code /v1/models/}) the whole list stays the answer.
 */
public final class RetrieveModelProcessor implements Processor {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Override
    public void process(Exchange exchange) {
        String id = MODEL.get(exchange);
        if (id == null) {
            return;
        }
        JsonNode list = Json.tree(exchange.getMessage().getBody(String.class));
        if (list != null) {
            for (JsonNode model : list.path("data")) {
                if (id.equals(model.path("id").asText(null))) {
                    Json.respond(exchange, 200, MAPPER.convertValue(model, Map.class));
                    return;
                }
            }
        }
        throw GatewayError.MODEL_NOT_FOUND.exception("The model `" + id + "` does not exist.");
    }
}
