package dev.caravan.processors.control;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Message;

import dev.caravan.processors.Json;
import dev.caravan.processors.error.GatewayError;

/**
 * Control step {@code relayWorkerAnswer} (after a {@code planServerInfo}-style plan and {@code direct:call-workers}):
 * relays one worker's answer as SGLang's router proxies a GET — its status and body, as JSON. Of the planned paths the
 * first that answered 2xx wins (paths in the plan's order of preference); when none did, the first answer received
 * (e.g. the engine's 404). No worker to ask: 503 {@code no_available_workers}; no answer at all: 502.
 */
public final class RelayWorkerAnswerProcessor implements org.apache.camel.Processor {

    private final List<String> preference;

    /** @param preference the planned paths, most preferred first */
    public RelayWorkerAnswerProcessor(List<String> preference) {
        this.preference = List.copyOf(preference);
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlResult> results = ControlResults.of(exchange);
        if (results.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception("No healthy workers to ask");
        }
        ControlResult chosen = null;
        for (String path : preference) {
            for (ControlResult r : results) {
                if (r.ok() && r.call().path().equals(path)) {
                    chosen = r;
                    break;
                }
            }
            if (chosen != null) {
                break;
            }
        }
        if (chosen == null) {
            chosen = results.stream().filter(r -> r.status() > 0).findFirst().orElse(null);
        }
        if (chosen == null) {
            throw GatewayError.UPSTREAM_FAILED.exception("worker " + results.get(0).call().worker().engineUrl()
                    + " did not answer: " + results.get(0).reason());
        }
        Message m = exchange.getMessage();
        m.getHeaders().clear();
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, chosen.status());
        m.setHeader(Exchange.CONTENT_TYPE, Json.CONTENT_TYPE);
        m.setBody(chosen.body() == null ? "" : chosen.body());
    }
}
