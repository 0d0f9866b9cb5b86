package dev.caravan.processors.kv;

import dev.caravan.policies.Worker;

/**
 * Where a worker's engine publishes KV events and answers replays: the endpoints the worker was registered with
 * ({@code POST /workers} fields, Kubernetes annotations), else the {@code --kv-*-endpoint-template}s expanded with the
 * worker URL's {@code {host}} and {@code {port}} (so {@code --worker-urls} and the legacy {@code /add_worker} get
 * endpoints too). An explicit events endpoint keeps its explicit replay endpoint (or none): templates never mix with
 * what a worker declared.
 *
 * @param events the PUB endpoint to subscribe to, or null when the worker publishes none
 * @param replay the ROUTER endpoint to ask for missed batches, or null
 */
public record KvEndpoints(String events, String replay) {

    /**
     * The worker's effective endpoints under these settings: rank 0's, as the engine was registered. A worker that is
     * one data-parallel rank of an engine ({@code --dp-aware}) has its engine's; {@link KvRouteManager} subscribes it to
     * its own rank's ports only ({@link ReplayEndpoints#forRank}).
     */
    public static KvEndpoints of(Worker worker, KvSettings settings) {
        if (worker.kvEventsEndpoint() != null) {
            return new KvEndpoints(worker.kvEventsEndpoint(), worker.kvReplayEndpoint());
        }
        return new KvEndpoints(expand(settings.eventsEndpointTemplate(), worker),
                expand(settings.replayEndpointTemplate(), worker));
    }

    /** True when there is something to subscribe to. */
    public boolean publishes() {
        return events != null;
    }

    static String expand(String template, Worker worker) {
        if (template == null) {
            return null;
        }
        return template.replace("{host}", worker.host()).replace("{port}", Integer.toString(worker.port()));
    }
}
