package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.caravan.sim.engine.SimRequest;

import io.vertx.core.http.HttpServerRequest;

/**
 * A call that prefills each prompt (costing prefill time and using the prefix cache, as the engine's pooling runners do)
 * and generates nothing: embeddings, classify and rerank. The handler shapes the answer from the finished requests; an
 * engine error is answered with its status and error body.
 */
final class PrefillOnly {

    private PrefillOnly() {
    }

    static void run(EngineContext ctx, HttpServerRequest req, List<int[]> prompts, Consumer<List<SimRequest>> answer) {
        List<Job> jobs = new ArrayList<>(prompts.size());
        for (int i = 0; i < prompts.size(); i++) {
            jobs.add(new Job(i, prompts.get(i), 0, null, null));
        }
        new GenerationCall(ctx, req, jobs, new GenerationCall.Sink() {
            @Override
            public void onToken(Job job, SimRequest r, int index, int tokenId) {
            }

            @Override
            public void onAllDone(List<SimRequest> results) {
                answer.accept(results);
            }

            @Override
            public void onError(int status, String message) {
                Json.sendError(req.response(), status, message);
            }
        }).start();
    }
}
