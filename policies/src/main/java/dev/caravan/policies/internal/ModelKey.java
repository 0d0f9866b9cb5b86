package dev.caravan.policies.internal;

import java.util.List;

import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/** Which per-model state (tree, bucket, ring) a request uses. */
final class ModelKey {

    private ModelKey() {
    }

    /**
     * The request's model; when the request names none ({@link Worker#UNKNOWN_MODEL_ID}, e.g. a gateway that ignores
     * the model, as SGLang's non-IGW router does), the model of the first healthy worker, which is SGLang's key. Either
     * way the key agrees with the {@link Worker#modelId()} the worker hooks use.
     */
    static String of(SelectionContext context, List<Worker> healthy) {
        String model = context.model();
        if (Worker.UNKNOWN_MODEL_ID.equals(model) && !healthy.isEmpty()) {
            return healthy.get(0).modelId();
        }
        return model;
    }
}
