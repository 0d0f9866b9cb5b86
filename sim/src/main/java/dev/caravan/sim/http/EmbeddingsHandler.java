package dev.caravan.sim.http;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /v1/embeddings}: each input is prefilled like a prompt (so it costs prefill time and uses the prefix
 * cache) and generates nothing; its vector is a deterministic unit vector of {@code embeddingDim} float32 values
 * derived from the token ids (same input → same vector). As vLLM: {@code encoding_format} {@code "float"} (the
 * default) answers a JSON array, {@code "base64"} the little-endian float32 bytes in base64 (what the OpenAI SDKs ask
 * for by default), anything else is a 400.
 */
final class EmbeddingsHandler {

    private final EngineContext ctx;

    EmbeddingsHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void handle(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        boolean base64 = base64(body.get("encoding_format"));
        List<int[]> inputs = Prompts.embedding(body, ctx.text);
        Limits.lengths(ctx, inputs, 0);
        PrefillOnly.run(ctx, req, inputs, results -> {
            List<Object> data = new ArrayList<>();
            long prompt = 0;
            for (int i = 0; i < results.size(); i++) {
                float[] v = vector(results.get(i).prompt(), ctx.config.embeddingDim());
                data.add(Json.obj("object", "embedding", "index", i, "embedding", base64 ? encoded(v) : floats(v)));
                prompt += results.get(i).promptTokens();
            }
            Json.send(req.response(), 200, Json.obj("object", "list", "data", data, "model", ctx.config.model(),
                    "usage", Json.obj("prompt_tokens", prompt, "total_tokens", prompt)));
        });
    }

    private static boolean base64(Object format) {
        if (format == null || "float".equals(format)) {
            return false;
        }
        if ("base64".equals(format)) {
            return true;
        }
        throw new BadRequest("encoding_format must be 'float' or 'base64', got " + format);
    }

    static float[] vector(int[] tokens, int dim) {
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
        float[] out = new float[dim];
        for (int i = 0; i < dim; i++) {
            out[i] = (float) (v[i] / norm);
        }
        return out;
    }

    /** The float32 values as JSON numbers (each exactly the float, as vLLM's {@code tolist()} of a float32 tensor). */
    static List<Double> floats(float[] v) {
        List<Double> out = new ArrayList<>(v.length);
        for (float x : v) {
            out.add((double) x);
        }
        return out;
    }

    /** The float32 values as little-endian bytes in standard base64. */
    static String encoded(float[] v) {
        ByteBuffer bytes = ByteBuffer.allocate(v.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(v);
        return Base64.getEncoder().encodeToString(bytes.array());
    }
}
