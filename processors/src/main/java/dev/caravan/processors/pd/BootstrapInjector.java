package dev.caravan.processors.pd;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

import dev.caravan.policies.Worker;
import dev.caravan.processors.request.RequestKind;

/**
 * SGLang's P/D rendezvous fields (docs/design/upstream.md, "SGLang: P/D bootstrap fields"): the body sent to
 * <em>both</em> legs gets {@code bootstrap_host} (the prefill worker's host), {@code bootstrap_port} (its KV bootstrap
 * port, or JSON null) and {@code bootstrap_room}, a random 63-bit number in {@code [0, 2^63-1]} that is the join key
 * between the two HTTP requests. For a batch each field becomes an array with one entry per sequence: the same host and
 * port, a distinct room each.
 *
 * <p>Batch size ({@link #batchSize}): prompts × {@code n}, where a prompt batch is {@code /generate}'s {@code input_ids}
 * as a list of lists or {@code text} as a list, a
 * completions {@code prompt} that is a list of strings or of token lists, and {@code n} is {@code sampling_params.n}
 * ({@code /generate}) or {@code n} (OpenAI APIs). One sequence → scalars. Pure and thread-safe.
 */
public final class BootstrapInjector {

    private BootstrapInjector() {
    }

    /** The rewritten body and the rooms it carries, one per sequence. */
    public record Injected(Map<String, Object> body, List<Long> rooms) {
    }

    /** A room: uniform in {@code [0, 2^63-1]} (Python's {@code random.randint(0, 2**63 - 1)}). */
    public static long room(RandomGenerator random) {
        return random.nextLong() & Long.MAX_VALUE;
    }

    /** The number of sequences when the request is a batch (fields become arrays), else null (scalars). */
    public static Integer batchSize(RequestKind kind, Map<String, Object> json) {
        Integer prompts = switch (kind) {
            case GENERATE -> json.get("input_ids") instanceof List<?> ids && !ids.isEmpty() && ids.get(0) instanceof List
                    ? Integer.valueOf(ids.size())
                    : json.get("text") instanceof List<?> texts ? Integer.valueOf(texts.size()) : null;
            case COMPLETIONS -> json.get("prompt") instanceof List<?> p && !p.isEmpty()
                    && (p.get(0) instanceof String || p.get(0) instanceof List) ? Integer.valueOf(p.size()) : null;
            default -> null;
        };
        Object nValue = kind == RequestKind.GENERATE && json.get("sampling_params") instanceof Map<?, ?> sp
                ? sp.get("n") : json.get("n");
        int n = nValue instanceof Number num ? Math.max(1, num.intValue()) : 1;
        if (prompts != null) {
            return prompts * n;
        }
        return n > 1 ? n : null;
    }

    /**
     * The body for both legs: {@code json} plus the three bootstrap fields (replacing any the client sent).
     *
     * @param prefill the prefill worker whose KV the decode engine pulls
     */
    public static Injected inject(RequestKind kind, Map<String, Object> json, Worker prefill, RandomGenerator random) {
        Map<String, Object> body = new LinkedHashMap<>(json);
        Integer batch = batchSize(kind, json);
        String host = prefill.host();
        Integer port = prefill.bootstrapPort();
        if (batch == null) {
            long room = room(random);
            body.put("bootstrap_host", host);
            body.put("bootstrap_port", port);
            body.put("bootstrap_room", room);
            return new Injected(body, List.of(room));
        }
        List<Long> rooms = new ArrayList<>(batch);
        for (int i = 0; i < batch; i++) {
            rooms.add(room(random));
        }
        body.put("bootstrap_host", Collections.nCopies(batch, host));
        body.put("bootstrap_port", Collections.nCopies(batch, port));
        body.put("bootstrap_room", rooms);
        return new Injected(body, List.copyOf(rooms));
    }

    /**
     * Whether the client asked for logprobs, in which case prefill's prompt logprobs are spliced into decode's answer:
     * {@code /generate} {@code return_logprob: true}, chat {@code logprobs: true}, completions {@code logprobs} present.
     */
    public static boolean logprobsRequested(RequestKind kind, Map<String, Object> json) {
        return switch (kind) {
            case GENERATE -> Boolean.TRUE.equals(json.get("return_logprob"));
            case CHAT -> Boolean.TRUE.equals(json.get("logprobs"));
            case COMPLETIONS -> json.get("logprobs") != null && !Boolean.FALSE.equals(json.get("logprobs"));
            default -> false;
        };
    }
}
