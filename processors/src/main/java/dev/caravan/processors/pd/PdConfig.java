package dev.caravan.processors.pd;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.caravan.policies.Worker;

/**
 * The P/D settings ({@code --pd-disaggregation}, {@code --prefill URL [PORT|none]}, {@code --decode URL},
 * {@code --prefill-policy}, {@code --decode-policy}, {@code --pd-mode}), built from the flag table by
 * {@link PdFeature#pdConfig}. The compact constructor keeps the one rule that spans settings: workers need P/D on.
 *
 * @param enabled       P/D routing for chat, completions and generate requests
 * @param mode          SGLang rendezvous or vLLM two-step
 * @param prefill       static prefill workers with their bootstrap ports
 * @param decode        static decode worker URLs
 * @param prefillPolicy policy name of the prefill pool, or null for {@code --policy}
 * @param decodePolicy  policy name of the decode pool, or null for {@code --policy}
 */
public record PdConfig(boolean enabled, PdMode mode, List<PrefillSpec> prefill, List<String> decode,
                       String prefillPolicy, String decodePolicy) {

    /** SGLang's protocol, the one SGLang's router speaks. */
    public static final PdMode DEFAULT_MODE = PdMode.SGLANG;

    /** A {@code --prefill} occurrence: the worker URL and its KV bootstrap port, or null ({@code none} / omitted). */
    public record PrefillSpec(String url, Integer bootstrapPort) {

        /**
         * Parses one {@code --prefill} occurrence: {@code URL}, {@code URL PORT} or {@code URL none} (SGLang's
         * launcher: an omitted port is no port).
         *
         * @throws IllegalArgumentException naming the occurrence and the bad part
         */
        public static PrefillSpec parse(List<String> values) {
            if (values.isEmpty() || values.size() > 2) {
                throw new IllegalArgumentException("--prefill takes a URL and an optional bootstrap port or 'none', was '"
                        + String.join(" ", values) + "'");
            }
            String url = Worker.normalizeUrl(values.get(0));
            if (values.size() == 1 || values.get(1).toLowerCase(Locale.ROOT).equals("none")) {
                return new PrefillSpec(url, null);
            }
            String port = values.get(1);
            try {
                int p = Integer.parseInt(port);
                if (p < 1 || p > 65535) {
                    throw new IllegalArgumentException("--prefill " + url + ": bootstrap port must be in [1,65535] or "
                            + "'none', was '" + port + "'");
                }
                return new PrefillSpec(url, p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--prefill " + url + ": bootstrap port must be an integer or 'none', "
                        + "was '" + port + "'");
            }
        }
    }

    public PdConfig {
        if (mode == null) {
            throw new IllegalArgumentException("mode must not be null");
        }
        prefill = List.copyOf(prefill);
        List<String> urls = new ArrayList<>(decode.size());
        for (String u : decode) {
            urls.add(Worker.normalizeUrl(u));
        }
        decode = List.copyOf(urls);
        prefillPolicy = blankToNull(prefillPolicy);
        decodePolicy = blankToNull(decodePolicy);
        if (!enabled && (!prefill.isEmpty() || !decode.isEmpty())) {
            throw new IllegalArgumentException("--prefill and --decode need --pd-disaggregation");
        }
    }

    /** P/D off. */
    public static PdConfig disabled() {
        return new PdConfig(false, DEFAULT_MODE, List.of(), List.of(), null, null);
    }

    /** The prefill pool's policy name: {@code --prefill-policy}, else {@code --policy}. */
    public String prefillPolicyOr(String fallback) {
        return prefillPolicy != null ? prefillPolicy : fallback;
    }

    /** The decode pool's policy name: {@code --decode-policy}, else {@code --policy}. */
    public String decodePolicyOr(String fallback) {
        return decodePolicy != null ? decodePolicy : fallback;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
