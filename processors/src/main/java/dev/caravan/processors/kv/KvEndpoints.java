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
     * The worker's effective endpoints under these settings. A worker that is one data-parallel rank of an engine
     * ({@code --dp-aware}) has none: the engine publishes every rank's events, and telling them apart needs the
     * per-rank block index (issue 14), so until then a rank's blocks are not indexed rather than credited to it wrongly.
     */
    public static KvEndpoints of(Worker worker, KvSettings settings) {
        if (worker.dataParallelRank() != null) {
            return new KvEndpoints(null, null);
        }
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
