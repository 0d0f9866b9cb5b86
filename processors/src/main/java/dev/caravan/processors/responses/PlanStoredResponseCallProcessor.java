package dev.caravan.processors.responses;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.control.ControlCall;
import dev.caravan.processors.error.GatewayError;

/**
 * Step {@code planStoredResponseCall} ({@code GET} and {@code DELETE /v1/responses/{id}},
 * {@code POST /v1/responses/{id}/cancel}): a response lives in the memory of the engine that produced it, so the call
 * is planned for that one worker ({@link ResponseAffinity}), with the same method, path and query; {@code call-workers}
 * makes it and {@code relayStoredResponse} relays the engine's answer as it is. SGLang's router asks every worker
 * instead and keeps the first 2xx; the gateway knows the worker, so one call suffices.
 *
 * <p>An id this gateway did not see stored (another replica served it, it expired, or it never existed), or whose
 * worker has left, is answered 404 {@code response_not_found} without asking any engine.
 */
public final class PlanStoredResponseCallProcessor implements Processor {

    /** The route's path parameter. */
    static final String ID_HEADER = "id";
    private static final String PREFIX = "/v1/responses/";

    private final ResponseAffinity affinity;
    private final WorkerRegistry workers;

    public PlanStoredResponseCallProcessor(ResponseAffinity affinity, WorkerRegistry workers) {
        this.affinity = affinity;
        this.workers = workers;
    }

    @Override
    public void process(Exchange exchange) {
        Message in = exchange.getIn();
        String id = in.getHeader(ID_HEADER, String.class);
        String method = in.getHeader(Exchange.HTTP_METHOD, String.class);
        String url = id == null ? null : affinity.workerOf(id);
        Worker worker = url == null ? null : workers.findByUrl(url).orElse(null);
        if (worker == null) {
            throw GatewayError.RESPONSE_NOT_FOUND.exception("Response with id '" + id + "' not found"
                    + (url == null ? "" : ": the worker that stored it has left") + ".");
        }
        // POST is only routed here for /cancel
        String path = PREFIX + id + ("POST".equals(method) ? "/cancel" : "");
        String query = in.getHeader(Exchange.HTTP_QUERY, String.class);
        if (query != null && !query.isEmpty()) {
            path += "?" + query;
        }
        exchange.getMessage().setBody(List.of(new ControlCall(worker, method, path, null)));
    }
}
