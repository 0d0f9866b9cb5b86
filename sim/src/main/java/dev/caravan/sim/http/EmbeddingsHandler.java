package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /v1/embeddings}: each input is prefilled like a prompt (so it costs prefill time and uses the prefix
 * cache) and generates nothing; its vector is a deterministic unit vector of {@code embeddingDim} floats derived from
 * the token ids (same input → same vector).
 */
final class EmbeddingsHandler {

    private final EngineContext ctx;

    EmbeddingsHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void handle(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        List<int[]> inputs = Prompts.embedding(body, ctx.text);
        Limits.lengths(ctx, inputs, 0);
        PrefillOnly.run(ctx, req, inputs, results -> {
            List<Object> data = new ArrayList<>();
            long prompt = 0;
            for (int i = 0; i < results.size(); i++) {
                data.add(Json.obj("object", "embedding", "index", i, "embedding",
                        vector(results.get(i).prompt(), ctx.config.embeddingDim())));
                prompt += results.get(i).promptTokens();
            }
            Json.send(req.response(), 200, Json.obj("object", "list", "data", data, "model", ctx.config.model(),
                    "usage", Json.obj("prompt_tokens", prompt, "total_tokens", prompt)));
        });
    }

    static List<Double> vector(int[] tokens, int dim) {
        long seed = 1469598103934665603L;
        for (int t : tokens) {
            seed = (seed ^ t) * 1099511628211L;
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] v = new double[dim];
        double norm = 0;
        for (int i = 0; i < dim; i++) {
            v[i] = rnd.nextDouble(-1, 1);
            norm += v[i] * v[i];
        }
        norm = Math.sqrt(norm);
        List<Double> out = new ArrayList<>(dim);
        for (double x : v) {
            out.add(x / norm);
        }
        return out;
    }
}
