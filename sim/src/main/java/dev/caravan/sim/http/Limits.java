package dev.caravan.sim.http;

import java.util.List;
import java.util.Map;

/** Checks shared by every generating endpoint: model name, context length, KV pool size. */
final class Limits {

    private Limits() {
    }

    /** vLLM answers 404 for a model it does not serve; absent {@code model} means the served one. */
    static void model(EngineContext ctx, Map<String, Object> body) {
        String model = Fields.string(body, "model");
        if (model != null && !model.equals(ctx.config.model())) {
            throw new BadRequest(404, "The model `" + model + "` does not exist.");
        }
    }

    /** vLLM's context-length check and the pool check: a sequence that can never fit is a 400, not a hang. */
    static void lengths(EngineContext ctx, List<int[]> prompts, int maxTokens) {
        int maxLen = ctx.config.maxModelLen();
        for (int[] p : prompts) {
            if (p.length + maxTokens > maxLen) {
                throw new BadRequest("This model's maximum context length is " + maxLen + " tokens. However, you "
                        + "requested " + (p.length + maxTokens) + " tokens (" + p.length + " in the messages, "
                        + maxTokens + " in the completion). Please reduce the length of the messages or completion.");
            }
            if (!ctx.core0().fits(p.length, maxTokens)) {
                throw new BadRequest("the request needs " + ctx.core0().poolBlocksNeeded(p.length, maxTokens)
                        + " KV blocks but the pool holds " + ctx.config.kvCapacityBlocks());
            }
        }
    }
}
