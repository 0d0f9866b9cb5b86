package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.engine.SimRequest;

import io.vertx.core.http.HttpServerRequest;

/**
 * SGLang's {@code POST /generate}: {@code text} or {@code input_ids} (single or batch), {@code sampling_params}
 * ({@code max_new_tokens}, 0 meaning prefill only; {@code n}), {@code stream}, {@code return_logprob}, {@code rid}, and the P/D bootstrap
 * fields. Each result is {@code {text, output_ids, meta_info}} with {@code meta_info.prompt_tokens},
 * {@code completion_tokens}, {@code cached_tokens}, {@code finish_reason}, {@code e2e_latency}; a batch answers an
 * array. Streaming chunks carry the cumulative text and ids (and {@code index} for batches), as SGLang does.
 *
 * <p>With {@code return_logprob}, {@code meta_info.input_token_logprobs} holds {@code [logprob, id, null]} for the
 * whole prompt (first entry's logprob null) — except on a decode engine, which returns an empty list because the
 * prompt was computed elsewhere — and {@code output_token_logprobs} the generated tokens'. A router that concatenates
 * prefill's input logprobs with decode's therefore gets exactly the regular engine's list.
 */
final class GenerateHandler {

    private final EngineContext ctx;

    GenerateHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void handle(HttpServerRequest req, Map<String, Object> body) {
        Prompts.Generate g = Prompts.generate(body, ctx.text);
        Map<?, ?> sp = Fields.object(body, "sampling_params");
        Map<?, ?> sampling = sp == null ? Map.of() : sp;
        int maxTokens = Fields.integer(sampling, "max_new_tokens", ctx.config.defaultMaxTokens(), 0,
                ctx.config.maxModelLen());
        int n = Fields.integer(sampling, "n", 1, 1, 128);
        boolean stream = Fields.bool(body, "stream", false);
        boolean logprob = Fields.bool(body, "return_logprob", false);
        String rid = body.get("rid") instanceof String s ? s : ctx.nextId("");
        JobPlanner.Plan plan = JobPlanner.plan(ctx, body, g.prompts(), n, maxTokens);
        Limits.lengths(ctx, g.prompts(), plan.jobs().get(0).maxTokens());
        boolean batch = g.batch() || n > 1;
        long start = System.nanoTime();
        GenerationCall.Sink sink = new GenerationCall.Sink() {
            private final SseWriter sse = stream ? new SseWriter(req, ctx.faults().dropAfterChunks(),
                    ctx.stats::recordDroppedConnection) : null;

            @Override
            public void onToken(Job job, SimRequest r, int index, int tokenId) {
                if (sse != null) {
                    Map<String, Object> chunk = result(r, rid, batch ? job.index() : -1, logprob, start,
                            index == r.maxTokens() - 1);
                    sse.event(chunk);
                }
            }

            @Override
            public void onAllDone(List<SimRequest> results) {
                if (sse != null) {
                    sse.done();
                    return;
                }
                if (!batch) {
                    Json.send(req.response(), 200, result(results.get(0), rid, -1, logprob, start, true));
                    return;
                }
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < results.size(); i++) {
                    out.add(result(results.get(i), rid + "-" + i, -1, logprob, start, true));
                }
                Json.send(req.response(), 200, out);
            }

            @Override
            public void onError(int status, String message) {
                if (sse == null || !sse.started()) {
                    Json.sendError(req.response(), status, message);
                } else {
                    sse.event(Json.error(status, message));
                    sse.done();
                }
            }
        };
        new GenerationCall(ctx, req, plan.jobs(), sink).start();
    }

    private Map<String, Object> result(SimRequest r, String rid, int index, boolean logprob, long startNanos,
                                       boolean finished) {
        int[] out = r.outputTokens();
        StringBuilder text = new StringBuilder();
        for (int t : out) {
            text.append(ctx.output.text(t));
        }
        Map<String, Object> meta = Json.obj("id", rid,
                "finish_reason", finished ? Json.obj("type", "length", "length", out.length) : null,
                "prompt_tokens", r.promptTokens(), "completion_tokens", out.length, "cached_tokens", r.cachedTokens(),
                "e2e_latency", (System.nanoTime() - startNanos) / 1e9);
        if (logprob) {
            meta.put("input_token_logprobs", r.warm() ? List.of() : inputLogprobs(r.prompt()));
            List<Object> outLp = new ArrayList<>(out.length);
            for (int i = 0; i < out.length; i++) {
                outLp.add(Arrays.asList(OutputGenerator.logprob(out[i], r.promptTokens() + i), out[i], null));
            }
            meta.put("output_token_logprobs", outLp);
        }
        Map<String, Object> m = Json.obj("text", text.toString(), "output_ids", Json.ids(out), "meta_info", meta);
        if (index >= 0) {
            m.put("index", index);
        }
        return m;
    }

    private static List<Object> inputLogprobs(int[] prompt) {
        List<Object> out = new ArrayList<>(prompt.length);
        for (int i = 0; i < prompt.length; i++) {
            out.add(Arrays.asList(i == 0 ? null : OutputGenerator.logprob(prompt[i], i), prompt[i], null));
        }
        return out;
    }
}
