package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.engine.SimRequest;

import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /v1/rerank} (and {@code /rerank}): each document is prefilled after the query, as a cross-encoder reads
 * the pair (so it costs prefill time and shares the query's cached prefix), and scored with a deterministic number in
 * [0, 1) derived from the pair's token ids. Answered in the engine's own shape: SGLang's list of
 * {@code {score, document, index, meta_info}} sorted by score, or vLLM's {@code {id, model, usage, results}} with
 * {@code relevance_score} (the {@code vllm} engine API).
 */
final class RerankHandler {

    private final EngineContext ctx;
    private final boolean vllmShape;

    RerankHandler(EngineContext ctx, boolean vllmShape) {
        this.ctx = ctx;
        this.vllmShape = vllmShape;
    }

    void handle(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        String query = Fields.string(body, "query");
        if (query == null) {
            throw new BadRequest("query is required and must be a string");
        }
        if (!(body.get("documents") instanceof List<?> docs) || docs.isEmpty()) {
            throw new BadRequest("documents must be a non-empty array of strings");
        }
        List<String> documents = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            if (!(docs.get(i) instanceof String d)) {
                throw new BadRequest("documents[" + i + "] must be a string");
            }
            documents.add(d);
            jobs.add(new Job(i, ctx.text.tokenizer().encode(query + "\n" + d, true), 0, null, null));
        }
        List<int[]> prompts = jobs.stream().map(Job::prompt).toList();
        Limits.lengths(ctx, prompts, 0);
        boolean returnDocuments = Fields.bool(body, "return_documents", true);
        new GenerationCall(ctx, req, jobs, new GenerationCall.Sink() {
            @Override
            public void onToken(Job job, SimRequest r, int index, int tokenId) {
            }

            @Override
            public void onAllDone(List<SimRequest> results) {
                List<Map<String, Object>> scored = new ArrayList<>();
                long tokens = 0;
                for (int i = 0; i < results.size(); i++) {
                    double score = score(results.get(i).prompt());
                    tokens += results.get(i).promptTokens();
                    scored.add(vllmShape
                            ? Json.obj("index", i, "document", returnDocuments ? Json.obj("text", documents.get(i))
                                    : null, "relevance_score", score)
                            : Json.obj("score", score, "document", returnDocuments ? documents.get(i) : null,
                                    "index", i, "meta_info", Json.obj("prompt_tokens", results.get(i).promptTokens())));
                }
                String key = vllmShape ? "relevance_score" : "score";
                scored.sort(Comparator.comparingDouble(m -> -((Number) m.get(key)).doubleValue()));
                Object answer = vllmShape ? Json.obj("id", ctx.nextId("rerank-"), "model", ctx.config.model(),
                        "usage", Json.obj("total_tokens", tokens), "results", scored) : scored;
                Json.send(req.response(), 200, answer);
            }

            @Override
            public void onError(int status, String message) {
                Json.sendError(req.response(), status, message);
            }
        }).start();
    }

    /** A stable score in [0, 1) of a token sequence (FNV-1a over the ids). */
    static double score(int[] tokens) {
        long h = 0xcbf29ce484222325L;
        for (int t : tokens) {
            h = (h ^ t) * 0x100000001b3L;
        }
        return (h >>> 11) / (double) (1L << 53);
    }
}
