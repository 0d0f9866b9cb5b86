package dev.caravan.bench.drive;

import java.io.IOException;
import java.util.Map;

import dev.caravan.bench.workload.BenchRequest;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.text.ModelText;

/**
 * The token ids the bench's engines compute for a request, so that the harness's reuse figures and ceilings
 * ({@link ReuseTracker}) count in the same tokens as the {@code prompt_tokens} and {@code cached_tokens} the engines
 * report. It loads the engines' own tokenizer and chat template ({@link SimConfig#tokenizer()}; the simulator's
 * synthetic tokenizer and default template without one) and applies them as an engine does: a chat request's messages
 * rendered with the generation prompt and encoded without special tokens, a completion's prompt encoded with them.
 * Thread-safe.
 */
public final class EngineTokens implements AutoCloseable {

    private final ModelText model;

    public EngineTokens(ModelText model) {
        this.model = model;
    }

    /** The tokens of the engines {@code config} starts. */
    public static EngineTokens of(SimConfig config) throws IOException {
        return new EngineTokens(config.tokenizer() == null ? ModelText.synthetic(config.charsPerToken())
                : ModelText.load(config.tokenizer(), config.chatTemplate()));
    }

    /** The engines' tokens of the request's prompt. */
    public int[] prompt(BenchRequest r) {
        return model.tokenizer().encode(text(r), !r.isChat());
    }

    /**
     * The tokens of the prompt followed by its answer, as a next turn that contains the answer would extend them
     * (the answer's text appended to the prompt's before encoding).
     */
    public int[] promptAndAnswer(BenchRequest r, String answer) {
        return model.tokenizer().encode(text(r) + answer, !r.isChat());
    }

    private String text(BenchRequest r) {
        if (!r.isChat()) {
            return r.renderedText();
        }
        if (model.chatTemplate() == null) {
            throw new IllegalStateException("the engines' model has no chat template, so they refuse chat requests");
        }
        return model.chatTemplate().render(r.messages(), null, true, Map.of());
    }

    @Override
    public void close() {
        model.close();
    }
}
