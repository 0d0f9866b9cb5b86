package dev.caravan.sim.http;

import java.util.List;
import java.util.Map;

import dev.caravan.sim.engine.SimRequest;

/**
 * OpenAI {@code usage}: prompt tokens and cached tokens count once per prompt (the first of its {@code n} samples,
 * as vLLM does), completion tokens for every sample.
 */
final class Usage {

    private Usage() {
    }

    static Map<String, Object> of(List<SimRequest> results, int n) {
        long prompt = 0;
        long cached = 0;
        long completion = 0;
        for (int i = 0; i < results.size(); i++) {
            SimRequest r = results.get(i);
            if (i % n == 0) {
                prompt += r.promptTokens();
                cached += r.cachedTokens();
            }
            completion += r.generated();
        }
        return Json.obj("prompt_tokens", prompt, "total_tokens", prompt + completion, "completion_tokens", completion,
                "prompt_tokens_details", Json.obj("cached_tokens", cached));
    }
}
