package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.engine.SimRequest;

import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /v1/classify} (SGLang) and {@code /classify} (vLLM): each input is prefilled like an embedding input and
 * given two-class probabilities derived from its token ids; the answer is the shape both engines use,
 * {@code {id, object:"list", created, model, data:[{index, label, probs, num_classes}], usage}}.
 */
final class ClassifyHandler {

    static final List<String> LABELS = List.of("LABEL_0", "LABEL_1");

    private final EngineContext ctx;

    ClassifyHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void handle(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        List<int[]> inputs = Prompts.embedding(body, ctx.text);
        Limits.lengths(ctx, inputs, 0);
        List<Job> jobs = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            jobs.add(new Job(i, inputs.get(i), 0, null, null));
        }
        new GenerationCall(ctx, req, jobs, new GenerationCall.Sink() {
            @Override
            public void onToken(Job job, SimRequest r, int index, int tokenId) {
            }

            @Override
            public void onAllDone(List<SimRequest> results) {
                List<Object> data = new ArrayList<>();
                long prompt = 0;
                for (int i = 0; i < results.size(); i++) {
                    double p1 = RerankHandler.score(results.get(i).prompt());
                    data.add(Json.obj("index", i, "label", LABELS.get(p1 >= 0.5 ? 1 : 0), "probs",
                            List.of(1 - p1, p1), "num_classes", LABELS.size()));
                    prompt += results.get(i).promptTokens();
                }
                Json.send(req.response(), 200, Json.obj("id", ctx.nextId("classify-"), "object", "list",
                        "created", ctx.createdSeconds(), "model", ctx.config.model(), "data", data,
                        "usage", Json.obj("prompt_tokens", prompt, "total_tokens", prompt, "completion_tokens", 0)));
            }

            @Override
            public void onError(int status, String message) {
                Json.sendError(req.response(), status, message);
            }
        }).start();
    }
}
